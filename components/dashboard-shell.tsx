"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { OutageNotice } from "./service-reachable";
import { ThemeChoice } from "./theme-choice";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { useRole } from "./use-role";

const ADMIN_LINKS = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/agents", label: "Agents" },
  { href: "/dashboard/requests", label: "Request log" },
  { href: "/dashboard/audit", label: "Audit log" },
  { href: "/dashboard/prices", label: "Prices" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/admins", label: "Admins" },
];

/**
 * The frame of every dashboard page: the navigation (a sidebar on wide screens, a menu that
 * opens from the top bar on phones), who is signed in, and sign-out.
 */
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
  const [menuOpen, setMenuOpen] = useState(false);
  const signOut = trpc.auth.signOut.useMutation({ onSuccess: () => router.replace("/login") });
  const endAll = trpc.auth.endAllSessions.useMutation();
  // Ending everyone's sessions is an owner's: no one else is offered it.
  const { isOwner } = useRole();
  const links = [
    ...(isAdmin ? ADMIN_LINKS : []),
    { href: "/dashboard/deployments", label: "Deployments" },
  ];
  const current = (href: string) =>
    href === "/dashboard"
      ? pathname === href
      : pathname === href || pathname.startsWith(`${href}/`);

  // A link followed on a phone closes the menu it was in.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of page.
  useEffect(() => setMenuOpen(false), [pathname]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="sidebar" data-open={menuOpen}>
        <div className="topbar">
          <Link href={isAdmin ? "/dashboard" : "/dashboard/deployments"} className="brand">
            Agent Service
          </Link>
          <Button
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="dashboard-menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            Menu
          </Button>
        </div>
        <div className="menu" id="dashboard-menu">
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
            {/* The service's own API reference (Swagger UI), a page outside the dashboard. */}
            <a href="/docs">API docs</a>
          </nav>
          <div className="who">
            <div>Signed in as</div>
            <div data-testid="who" className="who-name">
              {who}
            </div>
            <ThemeChoice />
            <div className="who-actions">
              <Button onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                Sign out
              </Button>
              {isOwner && (
                <ConfirmDialog
                  trigger="Sign out everyone"
                  title="Sign out everyone?"
                  confirmLabel="Sign out everyone"
                  onConfirm={async () => {
                    await endAll.mutateAsync();
                    window.location.replace("/login?ended=all");
                  }}
                >
                  <p>
                    Every dashboard session ends, on every browser, this one too. Everyone signs in
                    again; API keys keep working.
                  </p>
                </ConfirmDialog>
              )}
            </div>
          </div>
        </div>
      </header>
      <main id="main" className="content">
        <OutageNotice />
        {children}
      </main>
    </div>
  );
}
