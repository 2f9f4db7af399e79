import type { Metadata } from "next";
import { Suspense } from "react";
import { RequestsPage } from "@/components/requests/requests-page";
import { Loading } from "@/components/ui/query-state";

export const metadata: Metadata = { title: "Request log" };

export default function Requests() {
  return (
    <Suspense fallback={<Loading what="the requests" />}>
      <RequestsPage />
    </Suspense>
  );
}
