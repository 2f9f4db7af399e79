import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { auditLog } from "@/db/schema";
import { storableJsonText } from "@/server/kit/text";

/**
 * Recording a change: in the transaction that makes it, so that both are kept or neither. Only
 * admin operations call it, so a client that is not an admin adds no rows.
 */

/**
 * What a change's request says of who made it (the request context's fields); no session: the
 * service's own change. The session's shape is restated so that this needs nothing of auth.
 */
export type AuditSource = {
  session?:
    | { via: "api_key" }
    | { via: "personal_key"; admin: string }
    | { via: "wallet"; address: string; admin?: string }
    | null;
  requestId?: string;
  client?: string;
  /** Set when the request came with the dashboard's session cookie. */
  sessionId?: string;
};

export type AuditChange = {
  at: Date;
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
};

export async function recordChange(db: Db, source: AuditSource, change: AuditChange) {
  const { actor, via } = actorOf(source.session, source.sessionId !== undefined);
  const json = (value: unknown) =>
    value === undefined || value === null
      ? null
      : sql`${storableJsonText(JSON.stringify(value))}::jsonb`;
  await db.insert(auditLog).values({
    at: change.at,
    actor,
    actorVia: via,
    action: change.action,
    target: change.target,
    before: json(change.before),
    after: json(change.after),
    requestId: source.requestId ?? null,
    // A session-less change is the service's own: no client made it.
    client: source.session ? (source.client ?? null) : null,
  });
}

/**
 * The person where there is one (`admin:<id>`, through their key or a dashboard session), the
 * bootstrap ADMIN_API_KEY, or a wallet of ADMIN_ADDRESSES that is in no admins list entry.
 */
function actorOf(session: AuditSource["session"], cookie: boolean): { actor: string; via: string } {
  if (!session) return { actor: "system", via: "system" };
  const via = cookie ? "session" : "key";
  if (session.via === "api_key") return { actor: "admin-key", via };
  if (session.via === "personal_key") return { actor: `admin:${session.admin}`, via };
  if (session.admin) return { actor: `admin:${session.admin}`, via: "session" };
  return { actor: `wallet:${session.address}`, via: "session" };
}
