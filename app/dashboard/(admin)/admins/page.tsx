import type { Metadata } from "next";
import { AdminsPage } from "@/components/admins/admins-page";

export const metadata: Metadata = { title: "Admins" };

export default function Admins() {
  return <AdminsPage />;
}
