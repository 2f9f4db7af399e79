import type { Metadata } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { THEME_COOKIE, themeOf } from "@/components/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Agent Service", template: "%s · Agent Service" },
  description: "AI agents with exact quotas, autonomous runs and worker deployments.",
};

/**
 * The theme chosen on the dashboard (a cookie) is put on <html> here, on the server, so a page
 * never paints in the other scheme first; without a choice the system's applies.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = themeOf((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" {...(theme === "system" ? {} : { "data-theme": theme })}>
      <body>{children}</body>
    </html>
  );
}
