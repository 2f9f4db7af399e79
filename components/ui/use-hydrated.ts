"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and until React has hydrated the page, then true: a control whose
 * work is done by a script (connect a wallet, send a form through tRPC) stays disabled until
 * that script runs, instead of taking a click that does nothing.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
