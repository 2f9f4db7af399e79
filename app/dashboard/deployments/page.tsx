import { Suspense } from "react";
import { DeploymentsTable } from "@/components/deployments-table";

export default function DeploymentsPage() {
  return (
    <Suspense fallback={<p aria-busy="true">Loading…</p>}>
      <DeploymentsTable />
    </Suspense>
  );
}
