import { and, asc, eq, gt, isNull, or, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agentKeys, agents } from "@/db/schema";
import type { Caller } from "@/server/callers";
import { AppError } from "@/server/frame/errors";
import { AID_MAX_LENGTH, AID_PATTERN } from "@/server/kit/agent-id";
import type { Clock } from "@/server/kit/clock";
import type { Model, ModelList } from "./schema";

/**
 * The agents a caller may chat with, as OpenAI's models, by chat's own rule (chat/opening.ts,
 * `admitted`): a caller never sees an agent it could not chat with, and sees every one it could.
 */

type ModelsContext = { db: Db; caller: Caller; clock: Clock };

/** A page of the caller's models in aid order, keyset-paged by `after`. */
export async function listModels(
  ctx: ModelsContext,
  { limit, after }: { limit: number; after?: string },
): Promise<ModelList> {
  const visible = await visibleTo(ctx);
  const rows = await ctx.db
    .select({ aid: agents.aid, createdAt: agents.createdAt })
    .from(agents)
    .where(and(visible, after === undefined ? undefined : gt(agents.aid, after)))
    .orderBy(asc(agents.aid))
    .limit(limit + 1);
  const data = rows.slice(0, limit).map(modelOf);
  return {
    object: "list",
    data,
    has_more: rows.length > limit,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

/** One model, if the caller may chat with it; 404 model_not_found otherwise. */
export async function getModel(ctx: ModelsContext, model: string): Promise<Model> {
  const visible = await visibleTo(ctx);
  const [row] = await ctx.db
    .select({ aid: agents.aid, createdAt: agents.createdAt })
    .from(agents)
    .where(and(eq(agents.aid, model), visible));
  if (!row) throw modelNotFound(model);
  return modelOf(row);
}

/** The aid a completion or a response names; one that is no aid at all ("GPT-4") is a 404. */
export function askedAid(model: string): string {
  if (model.length > AID_MAX_LENGTH || !AID_PATTERN.test(model)) throw modelNotFound(model);
  return model;
}

/** A reply's bound asked above the service's own (max_tokens, max_output_tokens): a 400. */
export function checkTokenBound(field: string, tokens: number | undefined, limit: number): void {
  if (tokens === undefined || tokens <= limit) return;
  throw new AppError(
    "validation_failed",
    `${field} is ${tokens.toLocaleString("en")}, more than the ${limit.toLocaleString("en")} tokens a reply of this service may have.`,
    { errors: [{ field, detail: `must be at most ${limit}` }] },
  );
}

/** The 404 of a model the caller cannot use; like OpenAI, unknown and not open look the same. */
export function modelNotFound(model: string): AppError {
  return new AppError(
    "model_not_found",
    `The model '${model.slice(0, 100)}' does not exist or you do not have access to it; GET /v1/models lists the agents you may chat with.`,
  );
}

function modelOf(row: { aid: string; createdAt: Date }): Model {
  return {
    id: row.aid,
    object: "model",
    created: Math.floor(row.createdAt.getTime() / 1000),
    owned_by: "agent-service",
  };
}

/**
 * The agents the caller may chat with, as a condition: a paused agent takes no chat from anyone.
 * A key no agent has is refused with 401.
 */
async function visibleTo(ctx: ModelsContext): Promise<SQL> {
  const live = eq(agents.paused, false);
  switch (ctx.caller.kind) {
    case "admin":
      return live;
    case "key":
      return and(live, eq(agents.aid, await keyAgent(ctx))) as SQL;
    default:
      return and(live, eq(agents.chatAccess, "public")) as SQL;
  }
}

/**
 * The agent a key caller's key belongs to; 401 `invalid_key` when it is no live key of any
 * agent, so what a key is worth is judged before, and apart from, any agent it names.
 */
export async function keyAgent(ctx: ModelsContext): Promise<string> {
  const { db, caller } = ctx;
  if (caller.kind !== "key") throw new Error("keyAgent is for a key caller");
  const [key] = await db
    .select({ aid: agentKeys.aid })
    .from(agentKeys)
    .where(
      and(
        eq(agentKeys.id, caller.key.id),
        eq(agentKeys.secretHash, caller.key.secretHash),
        isNull(agentKeys.revokedAt),
        or(isNull(agentKeys.expiresAt), gt(agentKeys.expiresAt, ctx.clock.now())),
      ),
    );
  if (!key)
    throw new AppError(
      "invalid_key",
      "The key is not an agent key of this service: it is wrong or malformed, revoked, or expired.",
    );
  return key.aid;
}

/**
 * A refusal as OpenAI's clients would have it, telling no caller more than GET /v1/models would:
 * an agent it may not chat with is a model that is not there, whether the agent is missing or
 * takes its own keys only; and a key is judged alone, 401 when it is no live key at all.
 */
export async function inModelTerms(
  ctx: ModelsContext,
  error: unknown,
  model: string,
): Promise<unknown> {
  if (!(error instanceof AppError)) return error;
  if (!["agent_not_found", "key_required", "invalid_key"].includes(error.code)) return error;
  if (ctx.caller.kind === "key") await keyAgent(ctx);
  return modelNotFound(model);
}
