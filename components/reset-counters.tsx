"use client";

import { useState } from "react";
import { QUOTA_COUNTERS, type QuotaCounterName } from "@/server/quota/schema";
import { trpc } from "./trpc";
import { Checkbox } from "./ui/checkbox";
import { ConfirmDialog } from "./ui/confirm-dialog";

const LABELS: Record<QuotaCounterName, string> = {
  message_total: "Messages in total",
  message_monthly: "Messages this month",
  message_daily: "Messages today",
  autonomous_total: "Autonomous runs in total",
  autonomous_monthly: "Autonomous runs this month",
  token_total: "Tokens in total (and their cost)",
  token_monthly: "Tokens this month",
  token_daily: "Tokens today",
};

/**
 * "Reset counters": the chosen counters back to 0, after asking. The dialog opens with none
 * chosen, each time: a reset cannot be undone, and the totals (with their cost) are rarely what
 * is meant when one limit is in the way, so every counter reset is one the admin ticked. It
 * cannot confirm with none. The limits stay as they are.
 */
export function ResetCounters({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const reset = trpc.agents.resetQuota.useMutation({ onSuccess: () => utils.agents.invalidate() });
  const [chosen, setChosen] = useState<Set<QuotaCounterName>>(() => new Set());
  const all = chosen.size === QUOTA_COUNTERS.length;
  return (
    <ConfirmDialog
      trigger="Reset counters"
      title={`Reset the counters of ${aid}?`}
      confirmLabel={
        chosen.size === 0
          ? "Reset counters"
          : all
            ? "Reset all counters"
            : `Reset ${chosen.size} counter${chosen.size === 1 ? "" : "s"}`
      }
      onOpen={() => setChosen(new Set())}
      disabled={reset.isPending}
      confirmDisabled={chosen.size === 0}
      onConfirm={async () => {
        await reset.mutateAsync(all ? { aid } : { aid, counters: [...chosen] });
      }}
    >
      <p>Tick the counters to set back to 0. The limits stay as they are.</p>
      <fieldset>
        <legend className="sr-only">Counters to reset</legend>
        {QUOTA_COUNTERS.map((counter) => (
          <Checkbox
            key={counter}
            name={`reset-${counter}`}
            label={LABELS[counter]}
            checked={chosen.has(counter)}
            onChange={(event) => {
              const checked = event.currentTarget.checked;
              setChosen((before) => {
                const next = new Set(before);
                if (checked) next.add(counter);
                else next.delete(counter);
                return next;
              });
            }}
          />
        ))}
      </fieldset>
    </ConfirmDialog>
  );
}
