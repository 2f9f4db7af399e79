"use client";

import { ErrorAlert } from "@/components/ui/notice";
import { PageHeader } from "@/components/ui/page-header";

/**
 * A page that failed to render shows this inside the dashboard, with the navigation still there,
 * instead of the framework's bare error screen.
 */
export default function DashboardError({ reset }: { error: Error; reset: () => void }) {
  return (
    <>
      <PageHeader title="This page could not be shown" />
      <ErrorAlert
        action={
          <button type="button" onClick={() => reset()}>
            Try again
          </button>
        }
      >
        Something on this page failed to load, most often because the service could not be reached.
        Try again; if it keeps failing, reload the page.
      </ErrorAlert>
    </>
  );
}
