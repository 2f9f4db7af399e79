import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { storableJsonText } from "@/server/kit/text";
import { fanOutSql } from "@/server/outbox";

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
    | { via: "oidc"; email: string; admin?: string }
    | null;
  requestId?: string;
  client?: string;
  /** Set when the request came with the dashboard's session cookie. */
  sessionId?: string;
  /** No session, and not the service either: a client refused at sign-in. */
  anonymous?: boolean;
};

export type AuditChange = {
  at: Date;
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
};

/**
 * Inserts the entry and, in the same statement, its `audit.recorded` event for each subscribed
 * webhook endpoint: kept with the change, or neither.
 */
export async function recordChange(db: Db, source: AuditSource, change: AuditChange) {
  const { actor, via } = source.anonymous
    ? { actor: "anonymous", via: "session" }
    : actorOf(source.session, source.sessionId !== undefined);
  const json = (value: unknown) =>
    value === undefined || value === null
      ? sql`NULL::jsonb`
      : sql`${storableJsonText(JSON.stringify(value))}::jsonb`;
  // A session-less change is the service's own, a refused sign-in aside: no client made it.
  const client = source.session || source.anonymous ? (source.client ?? null) : null;
  const at = change.at.toISOString();
  await db.execute(sql`WITH entry AS (
      INSERT INTO audit_log (at, actor, actor_via, action, target, before, after, request_id, client)
      VALUES (${at}::timestamptz, ${actor}, ${via}, ${change.action}, ${change.target},
        ${json(change.before)}, ${json(change.after)}, ${source.requestId ?? null}::text,
        ${client}::text)
      RETURNING *)
    ${fanOutSql({
      type: "audit.recorded",
      at,
      from: sql`entry`,
      data: sql`json_build_object('id', entry.id, 'at', ${at}::text, 'actor', entry.actor,
        'actor_via', entry.actor_via, 'action', entry.action, 'target', entry.target,
        'before', entry.before, 'after', entry.after, 'request_id', entry.request_id,
        'client', entry.client)`,
    })}`);
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
  if (session.via === "oidc") return { actor: `oidc:${session.email}`, via: "session" };
  return { actor: `wallet:${session.address}`, via: "session" };
}
