import type { Metadata } from "next";
import { Suspense } from "react";
import { AgentsTable } from "@/components/agents-table";
import { Loading } from "@/components/ui/query-state";

export const metadata: Metadata = { title: "Agents" };

export default function AgentsPage() {
  return (
    <Suspense fallback={<Loading what="agents" />}>
      <AgentsTable />
    </Suspense>
  );
}
