import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { requestSession } from "@/app/dashboard/request-session";

/** The agents pages are for admins: a signed-in wallet goes to its deployments instead. */
export default async function AdminOnly({ children }: { children: ReactNode }) {
  const session = await requestSession();
  if (session?.role !== "admin") redirect("/dashboard/deployments?notice=admins-only");
  return children;
}
