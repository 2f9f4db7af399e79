import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/components/dashboard-shell";
import { TrpcProvider } from "@/components/trpc";
import { requestSession } from "@/server/auth/request-session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard" };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await requestSession();
  if (!session) redirect("/login");
  const who = session.via === "api_key" ? "Admin (API key)" : session.address;
  return (
    <TrpcProvider>
      <DashboardShell isAdmin={session.role === "admin"} who={who}>
        {children}
      </DashboardShell>
    </TrpcProvider>
  );
}
