"use client";

import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { PageHeader } from "@/components/ui/page-header";

/** A failed page, shown in the dashboard with its navigation rather than the framework's screen. */
export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return (
    <>
      <PageHeader title="This page could not be shown" />
      <Notice variant="error" action={<Button onClick={() => reset()}>Try again</Button>}>
        Something on this page failed to load, most often because the service could not be reached.
        Try again; if it keeps failing, reload the page.
      </Notice>
    </>
  );
}
