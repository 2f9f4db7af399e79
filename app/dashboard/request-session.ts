import { headers } from "next/headers";
import type { Session } from "@/server/auth";
import { createContext } from "@/server/frame/context";
import { PATH_HEADER } from "@/server/instance";

/**
 * The session of the page request being rendered (the dashboard's server components). Here, not
 * in server/: it reads Next.js's request headers, which only a page being rendered has.
 */
export async function requestSession(): Promise<Session | null> {
  const context = await createContext({ headers: await headers() });
  return context.session;
}

/**
 * The path and query of the page request being rendered, as the server entry saw it (Next.js
 * does not give it to a layout), without Next.js's own `_rsc` parameter of a client navigation.
 */
export async function requestPath(): Promise<string | null> {
  const raw = (await headers()).get(PATH_HEADER);
  if (!raw) return null;
  const url = new URL(raw, "http://here.invalid");
  url.searchParams.delete("_rsc");
  return `${url.pathname}${url.search}`;
}
