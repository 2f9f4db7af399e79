CREATE TABLE "model_prices" (
	"model" text PRIMARY KEY NOT NULL,
	"input_per_million" numeric NOT NULL,
	"output_per_million" numeric NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "model_prices_not_negative" CHECK ("model_prices"."input_per_million" >= 0 AND "model_prices"."output_per_million" >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_hourly" (
	"aid" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"messages" integer DEFAULT 0 NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT 0 NOT NULL,
	"unpriced" integer DEFAULT 0 NOT NULL,
	"refused_quota" integer DEFAULT 0 NOT NULL,
	"refused_rate" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_hourly_aid_hour_pk" PRIMARY KEY("aid","hour")
);
--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "input_tokens_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "output_tokens_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "input_tokens_monthly" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "output_tokens_monthly" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_month" date;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "input_tokens_daily" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "output_tokens_daily" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_day" date;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "cost_total" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "cost_monthly" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "cost_daily" numeric DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_limit_total" bigint;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_limit_monthly" bigint;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_limit_daily" bigint;--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD COLUMN "token_holds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "autonomous_runs" ADD COLUMN "cost" numeric;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "cost" numeric;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_hourly_by_hour" ON "usage_hourly" USING btree ("hour");--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD CONSTRAINT "agent_quotas_tokens_not_negative" CHECK ("agent_quotas"."input_tokens_total" >= 0 AND "agent_quotas"."output_tokens_total" >= 0 AND "agent_quotas"."input_tokens_monthly" >= 0 AND "agent_quotas"."output_tokens_monthly" >= 0 AND "agent_quotas"."input_tokens_daily" >= 0 AND "agent_quotas"."output_tokens_daily" >= 0 AND "agent_quotas"."token_holds" >= 0);--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD CONSTRAINT "agent_quotas_token_limits_not_negative" CHECK ("agent_quotas"."token_limit_total" >= 0 AND "agent_quotas"."token_limit_monthly" >= 0 AND "agent_quotas"."token_limit_daily" >= 0);--> statement-breakpoint
-- Usage so far, from what is stored: delivered replies (the autonomous thread's replies are runs)
-- and succeeded runs, unpriced (no prices existed before this).
INSERT INTO "usage_hourly" ("aid", "hour", "messages", "runs", "input_tokens", "output_tokens", "unpriced")
SELECT "aid", "hour", sum("messages"), sum("runs"), sum("input_tokens"), sum("output_tokens"), sum("messages" + "runs")
FROM (
  SELECT "aid", date_trunc('hour', "created_at", 'UTC') AS "hour", 1 AS "messages", 0 AS "runs",
    coalesce("input_tokens", 0) AS "input_tokens", coalesce("output_tokens", 0) AS "output_tokens"
  FROM "chat_messages" WHERE "role" = 'assistant' AND "caller" <> 'agent'
  UNION ALL
  SELECT "aid", date_trunc('hour', "finished_at", 'UTC'), 0, 1,
    coalesce("input_tokens", 0), coalesce("output_tokens", 0)
  FROM "autonomous_runs" WHERE "outcome" = 'succeeded' AND "finished_at" IS NOT NULL
) AS "stored"
WHERE "aid" IN (SELECT "aid" FROM "agents")
GROUP BY "aid", "hour";
--> statement-breakpoint
UPDATE "agent_quotas" AS q SET
  "input_tokens_total" = u."input_total", "output_tokens_total" = u."output_total",
  "input_tokens_monthly" = u."input_month", "output_tokens_monthly" = u."output_month",
  "token_month" = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
  "input_tokens_daily" = u."input_day", "output_tokens_daily" = u."output_day",
  "token_day" = (now() AT TIME ZONE 'UTC')::date
FROM (
  SELECT "aid",
    sum("input_tokens") AS "input_total", sum("output_tokens") AS "output_total",
    coalesce(sum("input_tokens") FILTER (WHERE "hour" >= date_trunc('month', now(), 'UTC')), 0) AS "input_month",
    coalesce(sum("output_tokens") FILTER (WHERE "hour" >= date_trunc('month', now(), 'UTC')), 0) AS "output_month",
    coalesce(sum("input_tokens") FILTER (WHERE "hour" >= date_trunc('day', now(), 'UTC')), 0) AS "input_day",
    coalesce(sum("output_tokens") FILTER (WHERE "hour" >= date_trunc('day', now(), 'UTC')), 0) AS "output_day"
  FROM "usage_hourly" GROUP BY "aid"
) AS u
WHERE q."aid" = u."aid";
