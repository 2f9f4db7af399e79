"use client";

import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { PageHeader } from "@/components/ui/page-header";

/**
 * A page that failed to render shows this inside the dashboard, with the navigation still there,
 * instead of the framework's bare error screen.
 */
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
