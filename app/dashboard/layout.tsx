import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { requestPath, requestSession } from "@/app/dashboard/request-session";
import { DashboardShell } from "@/components/dashboard-shell";
import { TrpcProvider } from "@/components/trpc";
import { SESSION_COOKIE, signInPath } from "@/server/auth";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await requestSession();
  // A session cookie that signs no one in: the session ended, which the sign-in page then says.
  // Either way, signing in leads back to the page asked for.
  if (!session) redirect(signInPath(await requestPath(), (await cookies()).has(SESSION_COOKIE)));
  const who = session.via === "api_key" ? "Admin (API key)" : session.address;
  return (
    <TrpcProvider signedIn>
      <DashboardShell isAdmin={session.role === "admin"} who={who}>
        {children}
      </DashboardShell>
    </TrpcProvider>
  );
}
