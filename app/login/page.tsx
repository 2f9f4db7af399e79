import type { Metadata } from "next";
import { SignInPage } from "@/components/wallet/sign-in";
import { dashboardPathOrNull, ssoErrorSentence, ssoStartPath } from "@/server/auth";
import { getConfig } from "@/server/frame/services";

export const metadata: Metadata = { title: "Sign in" };
// The accepted chains are read from the configuration of the running service, not the build.
export const dynamic = "force-dynamic";

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { ended, next, error, email } = await searchParams;
  const one = (value: string | string[] | undefined) =>
    typeof value === "string" ? value : undefined;
  const config = getConfig();
  return (
    <SignInPage
      chainIds={[...config.siwe.chainIds]}
      ended={one(ended)}
      next={dashboardPathOrNull(one(next)) ?? undefined}
      // Offered only when OIDC is configured; it keeps the page the user was going to.
      ssoPath={config.oidc ? ssoStartPath(one(next)) : undefined}
      ssoError={ssoErrorSentence(one(error), one(email))}
    />
  );
}
