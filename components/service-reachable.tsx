"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { Button } from "./ui/button";
import { Notice } from "./ui/notice";
import { UNREACHABLE } from "./ui/problem";

/**
 * Whether the service answers, for every page at once. A light probe (HEAD /health/live) asks
 * every PROBE_MS while the page is in view, OUTAGE_PROBE_MS while it gets no answer, so a page with
 * nothing to refresh (the agents list, the prices) still learns of an outage within seconds, and
 * of its end; a call that got no answer asks at once, and any answer says it does.
 */

const PROBE_MS = 10_000;
const OUTAGE_PROBE_MS = 3_000;

let unreachable = false;
const listeners = new Set<() => void>();

/** What a call or the probe found; the pages follow when it changes. */
export function reportReachable(reachable: boolean) {
  if (unreachable === !reachable) return;
  unreachable = !reachable;
  for (const notify of listeners) notify();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True while the service does not answer. */
export function useUnreachable(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => unreachable,
    () => false,
  );
}

let asking: Promise<boolean> | undefined;

/**
 * Asks the service once whether it answers (one question at a time, however many ask); true
 * when it does. A call that got no answer asks this rather than declaring an outage itself: one
 * request that failed on its way is not the service gone.
 */
export function probe(): Promise<boolean> {
  asking ??= (async () => {
    try {
      const response = await fetch("/health/live", { method: "HEAD", cache: "no-store" });
      reportReachable(response.ok);
      return response.ok;
    } catch {
      reportReachable(false);
      return false;
    } finally {
      asking = undefined;
    }
  })();
  return asking;
}

/**
 * Runs the probe while the page is in view; when the service answers again after an outage,
 * every query on the page is fetched anew (what it shows may have changed meanwhile).
 */
export function ReachabilityProbe() {
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      clearTimeout(timer);
      if (stopped || document.visibilityState !== "visible") return;
      timer = setTimeout(tick, unreachable ? OUTAGE_PROBE_MS : PROBE_MS);
    };
    const tick = async () => {
      await probe();
      schedule();
    };
    const onChange = () => {
      if (!unreachable) queryClient.invalidateQueries();
      schedule();
    };
    listeners.add(onChange);
    document.addEventListener("visibilitychange", schedule);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      listeners.delete(onChange);
      document.removeEventListener("visibilitychange", schedule);
    };
  }, [queryClient]);
  return null;
}

/**
 * Above every page while the service does not answer: what is shown may be out of date, and the
 * page comes back by itself; "Try now" asks at once.
 */
export function OutageNotice() {
  const unreachable = useUnreachable();
  const [asking, setAsking] = useState(false);
  if (!unreachable) return null;
  const tryNow = async () => {
    setAsking(true);
    try {
      // An answer ends the outage, which fetches the page's queries anew (ReachabilityProbe).
      await probe();
    } finally {
      setAsking(false);
    }
  };
  return (
    <Notice
      variant="error"
      testId="outage"
      action={
        <Button onClick={tryNow} disabled={asking}>
          {asking ? "Asking…" : "Try now"}
        </Button>
      }
    >
      {UNREACHABLE} What this page shows may be out of date; it asks again every few seconds and
      comes back by itself.
    </Notice>
  );
}
