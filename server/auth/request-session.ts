import { headers } from "next/headers";
import type { Session } from "@/server/auth/session";
import { createContext } from "@/server/context";

/** The session of the page request being rendered (server components only). */
export async function requestSession(): Promise<Session | null> {
  const context = await createContext({ headers: await headers() });
  return context.session;
}
