import type { Db } from "@/db/client";
import type { AgentQuotaRow } from "@/db/schema";
import type { Caller } from "@/server/callers";
import type { ChatConfig } from "@/server/frame/config";
import type { Clock } from "@/server/kit/clock";
import type { CalledAgent } from "@/server/model-call";
import { log } from "@/server/observability";
import type { ChatTurn } from "@/server/providers";
import {
  type LimitRefusal,
  noticeLimitsReached,
  type QuotaExceeded,
  quotaKeptChanging,
  whyRefused,
  withoutLaterUses,
  withTokenUsage,
} from "@/server/quota";
import { historyFromJson } from "@/server/threads";
import {
  admissionStatement,
  admissionValues,
  openingKind,
  quotaRefusalStatement,
  rateRefusalStatement,
  refusalValues,
} from "./admission-statement";
import { opener } from "./opening-batch";
import type { OpeningRequest } from "./opening-statement";
import { type RateLimit, rateLimitAfter } from "./rate-limit";

/** A chat that may go to the model: its use is reserved (server/quota) as `reservationId`. */
export type OpenedChat = {
  outcome: "opened";
  agent: CalledAgent;
  quotaRow: AgentQuotaRow;
  reservationId: number;
  history: ChatTurn[];
  rateLimit: RateLimit | null;
};

export type Opening =
  | OpenedChat
  | { outcome: "not_found" }
  | { outcome: "paused" }
  | { outcome: "key_required" | "key_invalid" }
  | { outcome: "rate_limited"; rateLimit: RateLimit }
  | { outcome: "quota_exceeded"; exceeded: QuotaExceeded; rateLimit: RateLimit | null };

/**
 * Everything a chat needs before its model call, in one statement (opening-statement.ts) with the
 * process's other chats opening at once. A refusal reads and counts what only it needs afterwards.
 */
export async function openChat(
  { db, clock }: { db: Db; clock: Clock },
  request: OpeningRequest,
  config: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Promise<Opening> {
  const { aid, caller } = request;
  const open = opener({ db, clock }, openingKind(caller), config);
  for (let attempt = 0; ; attempt++) {
    const { row, now } = await open(request);
    // No agent in the snapshot: nothing was counted (its quota and rate rows are written after it).
    if (!row) return { outcome: "not_found" };
    // Paused: refused whoever asks (admitted is false for it too, so nothing was counted).
    if (row.agent.paused) return { outcome: "paused" };
    if (!row.admitted) return { outcome: notAdmitted(caller) };
    const limit = row.rateLimitRpm;
    const counted =
      row.rateCount === null ? null : { count: row.rateCount, startedMs: row.rateWindowStartedMs };
    if (limit !== null && counted === null) {
      const [prior] = await rateRefusalStatement(db).execute(refusalValues(aid, caller, now));
      const rateLimit = rateLimitAfter(limit, now, { counted, prior: prior ?? null });
      return { outcome: "rate_limited", rateLimit };
    }
    const rateLimit = limit === null ? null : rateLimitAfter(limit, now, { counted, prior: null });
    if (row.quota && row.reservationId !== null) {
      return {
        outcome: "opened",
        agent: row.agent,
        quotaRow: withTokenUsage(withoutLaterUses(row.quota, row.usesAfter ?? 0), row.tokenUsage),
        reservationId: row.reservationId,
        history: historyFromJson(row.history, config),
        rateLimit,
      };
    }
    // Say which limit refused, from the row as it is now. None if a use was given back meanwhile:
    // then the chat is tried again (and counted in the rate window again, rarely).
    const refused = (await whyRefused(db, [aid], "message", now, row.hold)).get(aid);
    if (refused?.notFound) return { outcome: "not_found" };
    if (refused) {
      await Promise.all([
        quotaRefusalStatement(db).execute(refusalValues(aid, caller, now)),
        noticeRefusal(db, { aid, exceeded: refused.exceeded, row: refused.row }, now),
      ]);
      return { outcome: "quota_exceeded", exceeded: refused.exceeded, rateLimit };
    }
    if (attempt >= 2) throw quotaKeptChanging(aid);
  }
}

/** Noticed on the refusal path only; a notice that cannot be written leaves the 429 as it is. */
async function noticeRefusal(db: Db, refusal: LimitRefusal, now: Date): Promise<void> {
  await noticeLimitsReached(db, [refusal], now).catch((error: unknown) => {
    log.warn({ err: error, aid: refusal.aid }, "A quota refusal could not be noticed for webhooks");
  });
}

export type Admission =
  | { outcome: "admitted"; name: string }
  | { outcome: "not_found" | "paused" | "key_required" | "key_invalid" };

/**
 * Whether the caller may chat with the agent, counting nothing: for HEAD, which answers as GET,
 * and an MCP client's requests before a tool is called.
 */
export async function admissionOf(
  db: Db,
  { aid, caller }: { aid: string; caller: Caller },
  now: Date,
): Promise<Admission> {
  const [row] = await admissionStatement(db, openingKind(caller)).execute(
    admissionValues(caller, aid, now),
  );
  if (!row) return { outcome: "not_found" };
  if (row.paused) return { outcome: "paused" };
  return row.admitted ? { outcome: "admitted", name: row.name } : { outcome: notAdmitted(caller) };
}

function notAdmitted(caller: Caller): "key_invalid" | "key_required" {
  return caller.kind === "key" ? "key_invalid" : "key_required";
}
