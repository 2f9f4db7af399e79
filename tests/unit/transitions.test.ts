import { describe, expect, it } from "vitest";
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from "@/db/schema";
import { canTransition } from "@/server/deployments";

const allowed: [DeploymentStatus, DeploymentStatus][] = [
  ["init", "pick_up"],
  ["pick_up", "deploying"],
  ["deploying", "deployed"],
  ["deployed", "generated_proof"],
  ["init", "failed"],
  ["pick_up", "failed"],
  ["deploying", "failed"],
  ["deployed", "failed"],
  ["generated_proof", "failed"],
  ["init", "cancelled"],
  ["pick_up", "cancelled"],
  ["deployed", "pick_up"],
  ["generated_proof", "pick_up"],
];

describe("the deployment status machine", () => {
  it("allows exactly the designed transitions between different statuses", () => {
    for (const from of DEPLOYMENT_STATUSES) {
      for (const to of DEPLOYMENT_STATUSES) {
        if (from === to) continue;
        const expected = allowed.some(([a, b]) => a === from && b === to);
        expect(canTransition(from, to), `${from} -> ${to}`).toBe(expected);
      }
    }
  });

  it("allows the same status again (a details update) except in the final statuses", () => {
    for (const status of DEPLOYMENT_STATUSES) {
      expect(canTransition(status, status), status).toBe(
        status !== "failed" && status !== "cancelled",
      );
    }
  });
});
