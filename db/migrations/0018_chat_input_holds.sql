-- A chat holds the estimate of its input's tokens against the agent's token budgets, not one
-- token (server/quota/tokens.ts): its reservation records how many, so that the store settles
-- and a release gives back exactly that. Reservations in flight at the upgrade held one.
ALTER TABLE "chat_reservations" ADD COLUMN "held_tokens" bigint DEFAULT 1 NOT NULL;--> statement-breakpoint
DROP FUNCTION "agent_token_budgets_have_room"(text, bigint, bigint, bigint, bigint, date, date);--> statement-breakpoint
-- As in 0015, with the tokens the new start would hold (p_hold): the tokens used, the tokens held
-- in flight and p_hold must fit in each budget. VOLATILE for the same reason: its read of
-- agent_token_usage takes a snapshot of its own, after the reserve has the quota row.
CREATE FUNCTION "agent_token_budgets_have_room"(p_aid text, p_holds bigint, p_hold bigint,
  p_total bigint, p_monthly bigint, p_daily bigint, p_day date, p_month date) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  u "agent_token_usage"%ROWTYPE;
  needed bigint;
BEGIN
  IF p_total IS NULL AND p_monthly IS NULL AND p_daily IS NULL THEN
    RETURN true;
  END IF;
  SELECT * INTO u FROM "agent_token_usage" WHERE "aid" = p_aid;
  needed := p_holds - coalesce(u."holds_settled", 0) + p_hold;
  RETURN (p_total IS NULL
      OR coalesce(u."input_tokens_total" + u."output_tokens_total", 0) + needed <= p_total)
    AND (p_monthly IS NULL
      OR (CASE WHEN u."token_month" = p_month
          THEN u."input_tokens_monthly" + u."output_tokens_monthly" ELSE 0 END) + needed <= p_monthly)
    AND (p_daily IS NULL
      OR (CASE WHEN u."token_day" = p_day
          THEN u."input_tokens_daily" + u."output_tokens_daily" ELSE 0 END) + needed <= p_daily);
END
$$;
