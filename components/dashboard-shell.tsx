"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { trpc } from "./trpc";

const ADMIN_LINKS = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/agents", label: "Agents" },
];

export function DashboardShell({
  isAdmin,
  who,
  children,
}: {
  isAdmin: boolean;
  who: string;
  children: ReactNode;
}) {
  const pathname = usePathname();
  const router = useRouter();
  const signOut = trpc.auth.signOut.useMutation({ onSuccess: () => router.replace("/login") });
  const links = [
    ...(isAdmin ? ADMIN_LINKS : []),
    { href: "/dashboard/deployments", label: "Deployments" },
  ];
  const current = (href: string) =>
    href === "/dashboard"
      ? pathname === href
      : pathname === href || pathname.startsWith(`${href}/`);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">Agent Service</div>
        <nav className="nav" aria-label="Dashboard">
          {links.map((link) => (
            <Link
              key={link.href}
              href={link.href}
              aria-current={current(link.href) ? "page" : undefined}
            >
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="who">
          <div>Signed in as</div>
          <div data-testid="who">{who}</div>
          <button
            type="button"
            onClick={() => signOut.mutate()}
            disabled={signOut.isPending}
            style={{ marginTop: 8 }}
          >
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" className="content">
        {children}
      </main>
    </div>
  );
}
