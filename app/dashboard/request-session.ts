import { headers } from "next/headers";
import type { Session } from "@/server/auth";
import { createContext } from "@/server/context";

/**
 * The session of the page request being rendered (the dashboard's server components). Here, not
 * in server/: it reads Next.js's request headers, which only a page being rendered has.
 */
export async function requestSession(): Promise<Session | null> {
  const context = await createContext({ headers: await headers() });
  return context.session;
}
