import type { Metadata } from "next";
import { PricesPage } from "@/components/prices-page";

export const metadata: Metadata = { title: "Prices" };

export default function Prices() {
  return <PricesPage />;
}
