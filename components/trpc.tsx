"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { httpBatchStreamLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCReact } from "@trpc/react-query";
import { type ReactNode, useState } from "react";
import type { AppRouter } from "@/server/routers/app";

/** The dashboard's typed tRPC client: every read and write goes through the procedures. */
export const trpc = createTRPCReact<AppRouter>();

export function TrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            retry: (failures, error) => failures < 2 && !isClientError(error),
          },
        },
      }),
  );
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
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </trpc.Provider>
  );
}

function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } })?.data?.httpStatus;
  return status !== undefined && status >= 400 && status < 500;
}

/** The problem details the server sent with an error, for messages and field errors. */
export function problemOf(error: unknown): {
  detail: string;
  errors?: { field: string; detail: string }[];
} {
  const problem = (
    error as {
      data?: { problem?: { detail: string; errors?: { field: string; detail: string }[] } };
    }
  )?.data?.problem;
  return problem ?? { detail: error instanceof Error ? error.message : "Something went wrong." };
}
