import type { Metadata } from "next";
import { SignInPage } from "@/components/wallet/sign-in";
import { dashboardPathOrNull } from "@/server/auth";
import { getConfig } from "@/server/frame/services";

export const metadata: Metadata = { title: "Sign in" };
// The accepted chains are read from the configuration of the running service, not the build.
export const dynamic = "force-dynamic";

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { ended, next } = await searchParams;
  return (
    <SignInPage
      chainIds={[...getConfig().siwe.chainIds]}
      ended={typeof ended === "string" ? ended : undefined}
      next={dashboardPathOrNull(typeof next === "string" ? next : undefined) ?? undefined}
    />
  );
}
