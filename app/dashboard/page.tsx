import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { requestSession } from "@/app/dashboard/request-session";
import { Overview } from "@/components/overview";

export const metadata: Metadata = { title: "Overview" };

/** The overview is for admins; a wallet's dashboard is its deployments. */
export default async function OverviewPage() {
  if ((await requestSession())?.role !== "admin") redirect("/dashboard/deployments");
  return <Overview />;
}
