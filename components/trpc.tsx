"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { httpBatchStreamLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCReact } from "@trpc/react-query";
import { type ReactNode, useState } from "react";
import { signInPath } from "@/server/auth/view";
import type { AppRouter } from "@/server/routers";
import { probe, ReachabilityProbe, reportReachable } from "./service-reachable";
import { problemOf } from "./ui/problem";

/** The dashboard's typed tRPC client: every read and write goes through the procedures. */
export const trpc = createTRPCReact<AppRouter>();

/** How often a query that failed because the service was unreachable tries again by itself. */
const OUTAGE_POLL_MS = 3_000;

/**
 * `signedIn`: the pages behind a session (the dashboard). There, an answer saying the session
 * is gone (signed out in another tab, ended by an admin, expired) takes the user to the sign-in
 * page with a sentence, instead of every panel showing the API's refusal.
 */
export function TrpcProvider({
  children,
  signedIn = false,
}: {
  children: ReactNode;
  signedIn?: boolean;
}) {
  const [queryClient] = useState(() => {
    const onError = (error: unknown) => {
      if (problemOf(error).unreachable) void probe();
      else reportReachable(true);
      // Back to this page after signing in again.
      if (signedIn && sessionEnded(error))
        window.location.replace(
          signInPath(`${window.location.pathname}${window.location.search}`, true),
        );
    };
    const onSuccess = () => reportReachable(true);
    return new QueryClient({
      queryCache: new QueryCache({ onError, onSuccess }),
      mutationCache: new MutationCache({ onError, onSuccess }),
      defaultOptions: {
        queries: {
          staleTime: 5_000,
          // Not when no answer came: the page says so at once and tries again by itself (every
          // OUTAGE_POLL_MS, refreshEvery), where retries would only delay what the user sees.
          retry: (failures, error) =>
            failures < 2 && !isClientError(error) && !problemOf(error).unreachable,
          refetchInterval: refreshEvery(false),
        },
      },
    });
  });
  const [client] = useState(() =>
    trpc.createClient({
      links: [
        splitLink({
          // Sign-in and sign-out set cookies: a streamed response has sent its headers before the
          // procedure runs, so those go over a plain request.
          condition: (op) => op.path.startsWith("auth."),
          true: httpLink({ url: "/api/trpc" }),
          // Everything else streams each response as it is ready, and the chat reply as it comes.
          false: httpBatchStreamLink({ url: "/api/trpc" }),
        }),
      ],
    }),
  );
  return (
    <trpc.Provider client={client} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        {signedIn && <ReachabilityProbe />}
        {children}
      </QueryClientProvider>
    </trpc.Provider>
  );
}

/**
 * A query's refresh interval (`false`: none), except that after an outage a failed query comes
 * back by itself within seconds of the service, whatever its own interval.
 */
export function refreshEvery(ms: number | false) {
  return (query: { state: { status: string; error: unknown } }) =>
    query.state.status === "error" && problemOf(query.state.error).unreachable
      ? OUTAGE_POLL_MS
      : ms;
}

function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } })?.data?.httpStatus;
  return status !== undefined && status >= 400 && status < 500;
}

/** A 401 on a signed-in page: the session this page was opened with has ended. */
function sessionEnded(error: unknown): boolean {
  const problem = problemOf(error);
  return problem.status === 401 && problem.code === "unauthorized";
}
