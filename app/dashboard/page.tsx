import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { requestSession } from "@/app/dashboard/request-session";
import { Overview } from "@/components/overview";
import { isAdmin } from "@/server/auth";

export const metadata: Metadata = { title: "Overview" };

/** The overview is for admins; a wallet's dashboard is its deployments. */
export default async function OverviewPage() {
  if (!isAdmin(await requestSession())) redirect("/dashboard/deployments");
  return <Overview />;
}
