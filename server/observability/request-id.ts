import { randomUUID } from "node:crypto";

/** What an incoming X-Request-Id may be to be kept: short, and safe to log and echo. */
const SANE_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The request's id: the client's (or a proxy's) X-Request-Id when it is sane, else a new one. */
export function requestIdOf(headers: Headers): string {
  return requestIdFrom(headers.get("x-request-id"));
}

/** The same, from the header's value (the server entry reads Node.js's headers). */
export function requestIdFrom(given: string | null | undefined): string {
  return given && SANE_ID.test(given) ? given : randomUUID();
}
