import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditPage } from "@/components/audit/audit-page";
import { Loading } from "@/components/ui/query-state";

export const metadata: Metadata = { title: "Audit log" };

export default function Audit() {
  return (
    <Suspense fallback={<Loading what="the audit log" />}>
      <AuditPage />
    </Suspense>
  );
}
