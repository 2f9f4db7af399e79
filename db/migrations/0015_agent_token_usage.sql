-- A stored reply's tokens, cost and hold move from agent_quotas to agent_token_usage, so that
-- storing a reply no longer takes the quota row the next chat's reserve waits on
-- (db/schema.ts, BENCHMARKS.md). token_holds keeps counting holds taken; a delivered reply's
-- ends in holds_settled, so the holds in flight are the one minus the other.
CREATE TABLE "agent_token_usage" (
	"aid" text PRIMARY KEY NOT NULL,
	"input_tokens_total" bigint DEFAULT 0 NOT NULL,
	"output_tokens_total" bigint DEFAULT 0 NOT NULL,
	"input_tokens_monthly" bigint DEFAULT 0 NOT NULL,
	"output_tokens_monthly" bigint DEFAULT 0 NOT NULL,
	"token_month" date,
	"input_tokens_daily" bigint DEFAULT 0 NOT NULL,
	"output_tokens_daily" bigint DEFAULT 0 NOT NULL,
	"token_day" date,
	"cost_total" numeric DEFAULT 0 NOT NULL,
	"cost_monthly" numeric DEFAULT 0 NOT NULL,
	"cost_daily" numeric DEFAULT 0 NOT NULL,
	"holds_settled" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "agent_token_usage_not_negative" CHECK ("agent_token_usage"."input_tokens_total" >= 0 AND "agent_token_usage"."output_tokens_total" >= 0 AND "agent_token_usage"."input_tokens_monthly" >= 0 AND "agent_token_usage"."output_tokens_monthly" >= 0 AND "agent_token_usage"."input_tokens_daily" >= 0 AND "agent_token_usage"."output_tokens_daily" >= 0 AND "agent_token_usage"."holds_settled" >= 0)
);
--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP CONSTRAINT "agent_quotas_tokens_not_negative";--> statement-breakpoint
ALTER TABLE "agent_quotas" ALTER COLUMN "token_holds" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "agent_token_usage" ADD CONSTRAINT "agent_token_usage_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "agent_token_usage" ("aid", "input_tokens_total", "output_tokens_total",
  "input_tokens_monthly", "output_tokens_monthly", "token_month", "input_tokens_daily",
  "output_tokens_daily", "token_day", "cost_total", "cost_monthly", "cost_daily", "holds_settled")
SELECT "aid", "input_tokens_total", "output_tokens_total", "input_tokens_monthly",
  "output_tokens_monthly", "token_month", "input_tokens_daily", "output_tokens_daily", "token_day",
  "cost_total", "cost_monthly", "cost_daily", 0
FROM "agent_quotas";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "input_tokens_total";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "output_tokens_total";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "input_tokens_monthly";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "output_tokens_monthly";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "token_month";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "input_tokens_daily";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "output_tokens_daily";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "token_day";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "cost_total";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "cost_monthly";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP COLUMN "cost_daily";--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD CONSTRAINT "agent_quotas_token_holds_not_negative" CHECK ("agent_quotas"."token_holds" >= 0);--> statement-breakpoint
-- Every read of a quota reads this: the two rows as one, and the holds still in flight.
CREATE VIEW "agent_quota_view" AS
SELECT q."aid", q."message_count_total", q."message_limit_total", q."message_count_monthly",
  q."message_limit_monthly", q."message_month", q."message_count_daily", q."message_limit_daily",
  q."message_day", q."autonomous_count_total", q."autonomous_limit_total",
  q."autonomous_count_monthly", q."autonomous_limit_monthly", q."autonomous_month",
  q."last_message_at", q."last_autonomous_at", q."token_limit_total", q."token_limit_monthly",
  q."token_limit_daily",
  coalesce(u."input_tokens_total", 0) AS "input_tokens_total",
  coalesce(u."output_tokens_total", 0) AS "output_tokens_total",
  coalesce(u."input_tokens_monthly", 0) AS "input_tokens_monthly",
  coalesce(u."output_tokens_monthly", 0) AS "output_tokens_monthly",
  u."token_month",
  coalesce(u."input_tokens_daily", 0) AS "input_tokens_daily",
  coalesce(u."output_tokens_daily", 0) AS "output_tokens_daily",
  u."token_day",
  coalesce(u."cost_total", 0) AS "cost_total",
  coalesce(u."cost_monthly", 0) AS "cost_monthly",
  coalesce(u."cost_daily", 0) AS "cost_daily",
  q."token_holds" - coalesce(u."holds_settled", 0) AS "token_holds"
FROM "agent_quotas" q LEFT JOIN "agent_token_usage" u ON u."aid" = q."aid";--> statement-breakpoint
-- A reserve's token budget check (server/quota/tokens.ts): whether every budget of the agent
-- has room for one more start, its tokens used plus one for each hold in flight under the
-- limit. Called from the WHERE clause of the reserve's UPDATE of agent_quotas with that row's
-- token_holds and limits. VOLATILE, so that its read of agent_token_usage takes a snapshot of
-- its own: after a wait for the quota row, PostgreSQL evaluates the WHERE clause again on the
-- newest row version, and this read then sees every reply stored before the lock was had.
-- (A read in the statement itself would use the statement's snapshot, taken before the wait.)
CREATE FUNCTION "agent_token_budgets_have_room"(p_aid text, p_holds bigint, p_total bigint,
  p_monthly bigint, p_daily bigint, p_day date, p_month date) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  u "agent_token_usage"%ROWTYPE;
  in_flight bigint;
BEGIN
  IF p_total IS NULL AND p_monthly IS NULL AND p_daily IS NULL THEN
    RETURN true;
  END IF;
  SELECT * INTO u FROM "agent_token_usage" WHERE "aid" = p_aid;
  in_flight := p_holds - coalesce(u."holds_settled", 0);
  RETURN (p_total IS NULL
      OR coalesce(u."input_tokens_total" + u."output_tokens_total", 0) + in_flight < p_total)
    AND (p_monthly IS NULL
      OR (CASE WHEN u."token_month" = p_month
          THEN u."input_tokens_monthly" + u."output_tokens_monthly" ELSE 0 END) + in_flight < p_monthly)
    AND (p_daily IS NULL
      OR (CASE WHEN u."token_day" = p_day
          THEN u."input_tokens_daily" + u."output_tokens_daily" ELSE 0 END) + in_flight < p_daily);
END
$$;