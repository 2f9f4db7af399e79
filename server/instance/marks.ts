/**
 * What a route handler carries so that the server entry may call it ahead of Next.js's request
 * handler (server/instance/rest-routes.ts): the REST handlers made from the endpoint table
 * (server/rest/route.ts) set it, and nothing else does. A registered symbol, because the
 * handler lives in Next.js's bundle and the entry outside it: both must name the same one.
 */
export const SERVED_DIRECTLY: unique symbol = Symbol.for("agent-service.served-directly");

/** Marks a handler as one the entry may call directly; returns it. */
export function servedDirectly<H extends object>(handler: H): H {
  Object.defineProperty(handler, SERVED_DIRECTLY, { value: true });
  return handler;
}
