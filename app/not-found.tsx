import type { Metadata } from "next";

export const metadata: Metadata = { title: "Page not found" };

/**
 * An address that leads nowhere outside the dashboard (whose own addresses get a page inside its
 * frame, app/dashboard/not-found.tsx): a plain page in the service's look, with the way on.
 */
export default function NotFound() {
  return (
    <main className="center-page">
      <h1>Page not found</h1>
      <p>Nothing is at this address. It may have been mistyped, or the page may have moved.</p>
      <p>
        <a href="/dashboard">Open the dashboard</a> or go to the <a href="/">service's home page</a>
        .
      </p>
    </main>
  );
}
