"use client";

import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";

/**
 * Pause (after asking) or resume an agent: paused, its chats are refused and no run starts;
 * nothing is deleted or reset, and resumed it goes on from its next slot.
 */
export function PauseAgent({ aid, paused }: { aid: string; paused: boolean }) {
  const utils = trpc.useUtils();
  const upsert = trpc.agents.upsert.useMutation({ onSuccess: () => utils.agents.invalidate() });
  if (paused)
    return (
      <Button
        variant="primary"
        disabled={upsert.isPending}
        onClick={() => upsert.mutate({ aid, paused: false })}
      >
        Resume agent
      </Button>
    );
  return (
    <ConfirmDialog
      trigger="Pause agent"
      title={`Pause ${aid}?`}
      confirmLabel="Pause agent"
      danger={false}
      onConfirm={() => upsert.mutateAsync({ aid, paused: true })}
    >
      <p>
        Its callers are refused, told that it is paused, and no autonomous run starts until you
        resume it. Nothing is deleted or reset; resumed, its schedule goes on from the next slot.
      </p>
    </ConfirmDialog>
  );
}
