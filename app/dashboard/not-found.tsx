import type { Metadata } from "next";
import Link from "next/link";
import { requestSession } from "@/app/dashboard/request-session";
import { Notice } from "@/components/ui/notice";
import { PageHeader } from "@/components/ui/page-header";
import { isAdmin } from "@/server/auth";

export const metadata: Metadata = { title: "Page not found" };

/** A dashboard address that leads nowhere: said inside the dashboard, with the way back. */
export default async function DashboardNotFound() {
  const admin = isAdmin(await requestSession());
  return (
    <>
      <PageHeader title="Page not found" />
      <Notice>
        No dashboard page is at this address. It may have been mistyped, or what it showed may have
        been deleted.
      </Notice>
      <p>
        Go to the{" "}
        {admin ? (
          <>
            <Link href="/dashboard">Overview</Link> or the{" "}
            <Link href="/dashboard/agents">Agents</Link>
          </>
        ) : (
          <Link href="/dashboard/deployments">Deployments</Link>
        )}
        .
      </p>
    </>
  );
}
