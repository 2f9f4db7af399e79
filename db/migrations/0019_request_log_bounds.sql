-- The request log bounded (server/request-log): refusals naming no agent sampled per client
-- (the counters of request_log_missing_agent; stands_for on a sampled entry), an index for each
-- filter of the listing, and the breakdown's sums by hour and day kept by triggers.
CREATE TABLE "request_log_days" (
	"starts_at" timestamp with time zone NOT NULL,
	"aid" text NOT NULL,
	"model" text,
	"caller_group" text NOT NULL,
	"requests" bigint NOT NULL,
	"delivered" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost" numeric NOT NULL,
	"priced" bigint NOT NULL,
	CONSTRAINT "request_log_days_group" UNIQUE NULLS NOT DISTINCT("starts_at","aid","model","caller_group")
);
--> statement-breakpoint
CREATE TABLE "request_log_hours" (
	"starts_at" timestamp with time zone NOT NULL,
	"aid" text NOT NULL,
	"model" text,
	"caller_group" text NOT NULL,
	"requests" bigint NOT NULL,
	"delivered" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost" numeric NOT NULL,
	"priced" bigint NOT NULL,
	CONSTRAINT "request_log_hours_group" UNIQUE NULLS NOT DISTINCT("starts_at","aid","model","caller_group")
);
--> statement-breakpoint
CREATE TABLE "request_log_missing_agent" (
	"client" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"refusals" bigint NOT NULL,
	CONSTRAINT "request_log_missing_agent_client_hour_pk" PRIMARY KEY("client","hour")
);
--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "stands_for" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "unknown_agent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "request_log_days_by_agent" ON "request_log_days" USING btree ("aid","starts_at");--> statement-breakpoint
CREATE INDEX "request_log_hours_by_agent" ON "request_log_hours" USING btree ("aid","starts_at");--> statement-breakpoint
CREATE INDEX "request_log_by_caller" ON "request_log" USING btree ("caller","started_at","id");--> statement-breakpoint
CREATE INDEX "request_log_by_status" ON "request_log" USING btree ("status","started_at","id");--> statement-breakpoint
CREATE INDEX "request_log_failed" ON "request_log" USING btree ("started_at","id") WHERE "request_log"."status" <> 200;--> statement-breakpoint
CREATE INDEX "request_log_agent_failed" ON "request_log" USING btree ("aid","started_at","id") WHERE "request_log"."status" <> 200;--> statement-breakpoint
-- The aid an entry is summed under: '' for a refusal naming no agent, so that made-up aids do
-- not make a row each.
CREATE FUNCTION "request_log_summed_aid"(aid text, unknown_agent boolean) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN unknown_agent THEN '' ELSE aid END
$$;--> statement-breakpoint
-- An entry's group in the breakdown by key: an agent key by its id when the chat got past the
-- key (a reply, or a refusal that comes after it: quota, rate limit, the provider); any other
-- agent key's request (invalid, for no agent, refused before the key was read) in one group,
-- so that made-up key ids do not make a group each; else the caller's kind.
CREATE FUNCTION "request_log_caller_group"(caller text, status integer, code text,
  unknown_agent boolean) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN caller NOT LIKE 'key:%' THEN split_part(caller, ':', 1)
    WHEN NOT unknown_agent AND (status = 200 OR code IN ('quota_exceeded', 'rate_limited',
      'provider_error', 'provider_timeout')) THEN caller
    ELSE 'key' END
$$;--> statement-breakpoint
-- Adds a statement's inserted entries to their hour and day, or takes its deleted ones away
-- (both triggers name their transition table `entries`). Rows are written in one order, hours
-- before days, so that statements on the same hours never deadlock. Entries are never updated:
-- only inserted (the recorder) and deleted (the purge).
CREATE FUNCTION "request_log_sums_apply"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO "request_log_hours" AS s ("starts_at", "aid", "model", "caller_group", "requests",
    "delivered", "input_tokens", "output_tokens", "cost", "priced")
  SELECT date_trunc('hour', e."started_at", 'UTC'), "request_log_summed_aid"(e."aid", e."unknown_agent"),
    e."model", "request_log_caller_group"(e."caller", e."status", e."code", e."unknown_agent"),
    sign * sum(e."stands_for"), sign * count(*) FILTER (WHERE e."status" = 200),
    sign * coalesce(sum(e."input_tokens"), 0), sign * coalesce(sum(e."output_tokens"), 0),
    sign * coalesce(sum(e."cost"), 0), sign * count(e."cost")
  FROM entries e GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ("starts_at", "aid", "model", "caller_group") DO UPDATE SET
    "requests" = s."requests" + excluded."requests",
    "delivered" = s."delivered" + excluded."delivered",
    "input_tokens" = s."input_tokens" + excluded."input_tokens",
    "output_tokens" = s."output_tokens" + excluded."output_tokens",
    "cost" = s."cost" + excluded."cost",
    "priced" = s."priced" + excluded."priced";
  INSERT INTO "request_log_days" AS s ("starts_at", "aid", "model", "caller_group", "requests",
    "delivered", "input_tokens", "output_tokens", "cost", "priced")
  SELECT date_trunc('day', e."started_at", 'UTC'), "request_log_summed_aid"(e."aid", e."unknown_agent"),
    e."model", "request_log_caller_group"(e."caller", e."status", e."code", e."unknown_agent"),
    sign * sum(e."stands_for"), sign * count(*) FILTER (WHERE e."status" = 200),
    sign * coalesce(sum(e."input_tokens"), 0), sign * coalesce(sum(e."output_tokens"), 0),
    sign * coalesce(sum(e."cost"), 0), sign * count(e."cost")
  FROM entries e GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ("starts_at", "aid", "model", "caller_group") DO UPDATE SET
    "requests" = s."requests" + excluded."requests",
    "delivered" = s."delivered" + excluded."delivered",
    "input_tokens" = s."input_tokens" + excluded."input_tokens",
    "output_tokens" = s."output_tokens" + excluded."output_tokens",
    "cost" = s."cost" + excluded."cost",
    "priced" = s."priced" + excluded."priced";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "request_log_sums_clear"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE "request_log_hours", "request_log_days";
  RETURN NULL;
END
$$;--> statement-breakpoint
-- The entries already there (none of them flagged unknown_agent, so summed under their aid).
INSERT INTO "request_log_hours" ("starts_at", "aid", "model", "caller_group", "requests",
  "delivered", "input_tokens", "output_tokens", "cost", "priced")
SELECT date_trunc('hour', e."started_at", 'UTC'), e."aid", e."model",
  "request_log_caller_group"(e."caller", e."status", e."code", false), count(*),
  count(*) FILTER (WHERE e."status" = 200), coalesce(sum(e."input_tokens"), 0),
  coalesce(sum(e."output_tokens"), 0), coalesce(sum(e."cost"), 0), count(e."cost")
FROM "request_log" e GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "request_log_days" ("starts_at", "aid", "model", "caller_group", "requests",
  "delivered", "input_tokens", "output_tokens", "cost", "priced")
SELECT date_trunc('day', e."started_at", 'UTC'), e."aid", e."model",
  "request_log_caller_group"(e."caller", e."status", e."code", false), count(*),
  count(*) FILTER (WHERE e."status" = 200), coalesce(sum(e."input_tokens"), 0),
  coalesce(sum(e."output_tokens"), 0), coalesce(sum(e."cost"), 0), count(e."cost")
FROM "request_log" e GROUP BY 1, 2, 3, 4;--> statement-breakpoint
CREATE TRIGGER "request_log_sums_added" AFTER INSERT ON "request_log"
  REFERENCING NEW TABLE AS entries
  FOR EACH STATEMENT EXECUTE FUNCTION "request_log_sums_apply"();--> statement-breakpoint
CREATE TRIGGER "request_log_sums_removed" AFTER DELETE ON "request_log"
  REFERENCING OLD TABLE AS entries
  FOR EACH STATEMENT EXECUTE FUNCTION "request_log_sums_apply"();--> statement-breakpoint
CREATE TRIGGER "request_log_sums_cleared" AFTER TRUNCATE ON "request_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "request_log_sums_clear"();