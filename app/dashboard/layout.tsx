import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { requestPath, requestSession } from "@/app/dashboard/request-session";
import { DashboardShell } from "@/components/dashboard-shell";
import { TrpcProvider } from "@/components/trpc";
import { isAdmin, SESSION_COOKIE, signInPath } from "@/server/auth";

const ROLE_NAMES = { owner: "Owner", operator: "Operator", viewer: "Viewer" } as const;

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await requestSession();
  // A session cookie that signs no one in: the session ended, which the sign-in page then says.
  // Either way, signing in leads back to the page asked for.
  if (!session) redirect(signInPath(await requestPath(), (await cookies()).has(SESSION_COOKIE)));
  const who =
    session.via === "api_key"
      ? "Owner (ADMIN_API_KEY)"
      : session.via === "personal_key"
        ? `${ROLE_NAMES[session.role]} (admin key)`
        : session.via === "oidc"
          ? `${session.email} (${session.role})`
          : session.address;
  return (
    <TrpcProvider signedIn>
      <DashboardShell isAdmin={isAdmin(session)} who={who}>
        {children}
      </DashboardShell>
    </TrpcProvider>
  );
}
