"use client";

import type { ReactNode } from "react";
import { ReadOnlyNotice } from "./ui/read-only-notice";
import { useRole } from "./use-role";

/**
 * A page that is one form to change `what` (a new agent): shown to operators and owners; anyone
 * else is told why instead, and nothing shows until the session is read.
 */
export function OperatorsOnly({ what, children }: { what: string; children: ReactNode }) {
  const { role, canOperate } = useRole();
  if (canOperate) return children;
  return role ? <ReadOnlyNotice role={role} what={what} /> : null;
}
