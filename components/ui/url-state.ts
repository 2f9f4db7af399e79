"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * A list's state (search, order, filters, page) kept in the URL's query, so that Back, reload
 * and a shared link show the same list. Changes go through the browser's history API, which
 * Next.js follows: no request to the server, so a filter works even while the server is away.
 */
export function useUrlState() {
  const params = useSearchParams();
  const pathname = usePathname();
  const update = useCallback(
    (changes: Record<string, string | number | undefined>, how: "push" | "replace" = "push") => {
      const next = new URLSearchParams(window.location.search);
      for (const [name, value] of Object.entries(changes)) {
        if (value === undefined || value === "") next.delete(name);
        else next.set(name, String(value));
      }
      const query = next.toString();
      const url = query ? `${pathname}?${query}` : pathname;
      if (how === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    },
    [pathname],
  );
  return { params, update };
}

/** One of `allowed`, from a query parameter; undefined for anything else. */
export function oneOf<T extends string>(
  value: string | null,
  allowed: readonly T[],
): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined;
}

/** A whole number from 1 up, from a query parameter; `fallback` for anything else. */
export function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}
