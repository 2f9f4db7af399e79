import type { Metadata } from "next";
import { Suspense } from "react";
import { requestSession } from "@/app/dashboard/request-session";
import { DeploymentsTable } from "@/components/deployments-table";
import { Loading } from "@/components/ui/query-state";
import { isAdmin } from "@/server/auth";

export const metadata: Metadata = { title: "Deployments" };

export default async function DeploymentsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await requestSession();
  const notice = (await searchParams).notice;
  return (
    <Suspense fallback={<Loading what="deployments" />}>
      <DeploymentsTable
        isAdmin={isAdmin(session)}
        notice={typeof notice === "string" ? notice : undefined}
      />
    </Suspense>
  );
}
