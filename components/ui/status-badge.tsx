import { cx } from "./class-names";
import styles from "./status-badge.module.css";

/** How a status reads at a glance: its colour family. */
export type Tone = "ok" | "warn" | "danger" | "neutral";

const TONES: Record<string, Tone> = {
  healthy: "ok",
  succeeded: "ok",
  deployed: "ok",
  generated_proof: "ok",
  unhealthy: "danger",
  unreachable: "danger",
  failed: "danger",
  cancelled: "danger",
  running: "warn",
  paused: "warn",
  skipped: "warn",
  pick_up: "warn",
  deploying: "warn",
};

/** The words people use for the service's status names. */
const LABELS: Record<string, string> = {
  init: "New",
  pick_up: "Picked up",
  deploying: "Deploying",
  deployed: "Deployed",
  generated_proof: "Proof generated",
  failed: "Failed",
  cancelled: "Cancelled",
  running: "Running",
  paused: "Paused",
  succeeded: "Succeeded",
  skipped: "Skipped",
  healthy: "Healthy",
  unhealthy: "Unhealthy",
  unreachable: "Unreachable",
};

export function statusLabel(status: string): string {
  return LABELS[status] ?? status.replaceAll("_", " ");
}

/** A status as a coloured pill with its label; the raw status name stays in `data-status`. */
export function StatusBadge({
  status,
  tone,
  testId,
}: {
  status: string;
  tone?: Tone;
  testId?: string;
}) {
  return (
    <span
      className={cx(styles.badge, styles[tone ?? TONES[status] ?? "neutral"])}
      data-status={status}
      data-testid={testId}
    >
      {statusLabel(status)}
    </span>
  );
}
