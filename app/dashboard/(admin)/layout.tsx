import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { requestSession } from "@/app/dashboard/request-session";
import { isAdmin } from "@/server/auth";

/** The agents pages are for admins: a signed-in wallet goes to its deployments instead. */
export default async function AdminOnly({ children }: { children: ReactNode }) {
  const session = await requestSession();
  if (!isAdmin(session)) redirect("/dashboard/deployments?notice=admins-only");
  return children;
}
