import type { DeploymentRow } from "@/db/schema";
import type { Config, SiweConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import { allowedNext, canTransition, type DeploymentStatus, FINAL_STATUSES } from "./view";

// Who may change a deployment's status to what: for signed status updates and the dashboard alike.

type Siwe = Pick<SiweConfig, "adminAddresses" | "workerAddresses">;
type StatusChange = { status: DeploymentStatus };

/** Refuses alike whether or not the request_id exists, so signing cannot probe for request_ids. */
export function notYours(requestId: string): AppError {
  return new AppError(
    "deployment_not_found",
    `No deployment with request_id '${requestId}' that you may change.`,
  );
}

export function isAdmin(address: string, config: Pick<Config, "siwe">): boolean {
  return config.siwe.adminAddresses.has(address.toLowerCase());
}

/** Why `signer` may not make this change; one that may not act on it at all learns nothing more. */
export function refusal(
  current: DeploymentRow,
  statement: StatusChange,
  signer: string,
  siwe: Siwe,
): AppError | undefined {
  const admin = siwe.adminAddresses.has(signer.toLowerCase());
  const assignedTo = current.workerAddress;
  const mayClaim =
    siwe.workerAddresses.size === 0 || siwe.workerAddresses.has(signer.toLowerCase());
  if (!admin && assignedTo && assignedTo !== signer) {
    if (statement.status === "pick_up" && mayClaim) {
      return new AppError(
        "already_claimed",
        `Deployment '${current.requestId}' has already been picked up by another worker.`,
      );
    }
    return notYours(current.requestId);
  }
  if (!admin && !assignedTo) {
    if (!mayClaim) return notYours(current.requestId);
    if (statement.status !== "pick_up") {
      return new AppError(
        "forbidden",
        `Deployment '${current.requestId}' is not assigned to you: a worker claims it by signing pick_up first.`,
      );
    }
  }
  if (!canTransition(current.status, statement.status)) {
    const next = allowedNext(current.status);
    return new AppError(
      "transition_not_allowed",
      `A deployment in ${current.status} cannot move to ${statement.status}; ${
        next.length > 0 ? `it can move to ${next.join(", ")}` : `${current.status} is final`
      }.`,
    );
  }
  return undefined;
}

/** The statuses `signer` may move the deployment to now, or why none, for the dashboard. */
export function allowedChanges(
  current: DeploymentRow,
  signer: string,
  siwe: Siwe,
): { statuses: DeploymentStatus[]; reason: string | null } {
  const statuses = allowedNext(current.status).filter(
    (status) => refusal(current, { status }, signer, siwe) === undefined,
  );
  if (statuses.length > 0) return { statuses, reason: null };
  const admin = siwe.adminAddresses.has(signer.toLowerCase());
  const reason = FINAL_STATUSES.includes(current.status)
    ? `${current.status === "failed" ? "Failed" : "Cancelled"} is final: nothing can change it.`
    : !admin && current.workerAddress && current.workerAddress !== signer
      ? "Another worker has picked this deployment up: only that worker or an admin can change it."
      : "This wallet may not change this deployment: only the worker that picks it up, or an admin, can.";
  return { statuses, reason };
}
