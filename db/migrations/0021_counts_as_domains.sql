-- Counts, limits and token figures are kept non-negative by their type (a domain) instead of
-- CHECK constraints: PostgreSQL parses a table's CHECK constraints again in every statement that
-- writes a row of it, which was about a seventh of its work on a chat; a domain's check is kept
-- parsed.
CREATE DOMAIN "non_negative_integer" AS integer CHECK (VALUE >= 0);--> statement-breakpoint
CREATE DOMAIN "non_negative_bigint" AS bigint CHECK (VALUE >= 0);--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP CONSTRAINT "agent_quotas_counts_not_negative";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP CONSTRAINT "agent_quotas_limits_not_negative";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP CONSTRAINT "agent_quotas_token_holds_not_negative";--> statement-breakpoint
ALTER TABLE "agent_quotas" DROP CONSTRAINT "agent_quotas_token_limits_not_negative";--> statement-breakpoint
ALTER TABLE "agent_token_usage" DROP CONSTRAINT "agent_token_usage_not_negative";--> statement-breakpoint
-- The view reads the columns whose types change: made again after.
DROP VIEW "agent_quota_view";--> statement-breakpoint
ALTER TABLE "agent_quotas" ALTER COLUMN "message_count_total" SET DATA TYPE "non_negative_integer", ALTER COLUMN "message_limit_total" SET DATA TYPE "non_negative_integer", ALTER COLUMN "message_count_monthly" SET DATA TYPE "non_negative_integer", ALTER COLUMN "message_limit_monthly" SET DATA TYPE "non_negative_integer", ALTER COLUMN "message_count_daily" SET DATA TYPE "non_negative_integer", ALTER COLUMN "message_limit_daily" SET DATA TYPE "non_negative_integer", ALTER COLUMN "autonomous_count_total" SET DATA TYPE "non_negative_integer", ALTER COLUMN "autonomous_limit_total" SET DATA TYPE "non_negative_integer", ALTER COLUMN "autonomous_count_monthly" SET DATA TYPE "non_negative_integer", ALTER COLUMN "autonomous_limit_monthly" SET DATA TYPE "non_negative_integer", ALTER COLUMN "token_limit_total" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "token_limit_monthly" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "token_limit_daily" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "token_holds" SET DATA TYPE "non_negative_bigint";--> statement-breakpoint
ALTER TABLE "agent_token_usage" ALTER COLUMN "input_tokens_total" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "output_tokens_total" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "input_tokens_monthly" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "output_tokens_monthly" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "input_tokens_daily" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "output_tokens_daily" SET DATA TYPE "non_negative_bigint", ALTER COLUMN "holds_settled" SET DATA TYPE "non_negative_bigint";--> statement-breakpoint
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
-- A message names its thread without a foreign key: the store writes both in one statement, and
-- the check was two queries a chat. Deleting an agent deletes its messages (server/agents).
ALTER TABLE "chat_messages" DROP CONSTRAINT "chat_messages_aid_caller_chat_id_chat_threads_aid_caller_chat_id_fk";
