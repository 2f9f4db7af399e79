import { eq } from "drizzle-orm";
import type { z } from "zod";
import { deployments } from "@/db/schema";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { spendNonce } from "@/server/nonces";
import { metrics } from "@/server/observability";
import {
  checkPrivyToken,
  parseJsonStatement,
  verifySiweMessage,
  wrongPurpose,
} from "@/server/siwe";
import { presentDeployment } from "./deployments";
import { isAdmin, notYours, refusal } from "./permissions";
import {
  type Deployment,
  type StatusStatement,
  statusStatementSchema,
  type statusUpdateInputSchema,
} from "./schema";
import { recordStatusChange } from "./status-change";

type Ctx = DataContext;

/**
 * A worker's signed status change: after the signature checks, one transaction spends the nonce
 * and locks, checks and changes the deployment, so that a replay or two workers racing for
 * `pick_up` have exactly one winner.
 */
export async function updateStatus(
  { db, clock, config }: Ctx & { config: Pick<Config, "siwe" | "privy"> },
  input: z.output<typeof statusUpdateInputSchema>,
): Promise<Deployment> {
  const now = clock.now();
  // Refusals before the signature is known good leave the nonce: the message was not the
  // signer's to spend. Every refusal after it spends it, so a signed message works once.
  const message = await verifySiweMessage(
    config.siwe,
    { message: input.siwe_msg, signature: input.signature, address: input.user_address },
    now,
  );
  let statement: StatusStatement;
  try {
    if (message.purpose !== "status-update") throw wrongPurpose("status-update");
    statement = parseStatement(message.statement);
    await checkPrivyToken(config.privy, input.privy_token, message.address);
  } catch (error) {
    await spendNonce(db, message.nonce, message.address, now);
    throw error;
  }

  const outcome = await db.transaction(async (tx) => {
    await spendNonce(tx, message.nonce, message.address, now);
    const [current] = await tx
      .select()
      .from(deployments)
      .where(eq(deployments.requestId, statement.request_id))
      .for("update");
    // Committed with the nonce spent: a refused message cannot be sent again either.
    if (!current) return { refused: notYours(statement.request_id) };
    const refused = refusal(current, statement, message.address, config.siwe);
    if (refused) return { refused };

    const claims =
      !current.workerAddress && statement.status === "pick_up" && !isAdmin(message.address, config);
    const recorded = await recordStatusChange(tx, current, {
      status: statement.status,
      details: statement.deployment_details,
      signer: message.address,
      nonce: message.nonce,
      assign: {
        ...(statement.worker_name ? { workerName: statement.worker_name } : {}),
        ...(statement.worker_uuid ? { workerUuid: statement.worker_uuid } : {}),
        ...(claims ? { workerAddress: message.address } : {}),
      },
      at: now,
      detailsField: { code: "invalid_statement", field: "statement.deployment_details" },
    });
    return { ...recorded, from: current.status };
  });
  if ("refused" in outcome) throw outcome.refused;
  metrics.deploymentChanges.inc({ from: outcome.from, to: statement.status });
  return presentDeployment(outcome.updated);
}

/** The statement is a JSON object (the form worker SDKs sign); anything else is a 400. */
function parseStatement(statement: string | undefined): StatusStatement {
  if (!statement) {
    throw new AppError(
      "invalid_statement",
      "The message has no statement; it must be a JSON object with request_id and status.",
    );
  }
  return statementOrError(parseJsonStatement(statement));
}

function statementOrError(value: unknown): StatusStatement {
  const parsed = statusStatementSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "statement"} ${issue.message}`,
  );
  throw new AppError(
    "invalid_statement",
    `The message's statement is not a valid status update: ${problems.join("; ")}.`,
    {
      errors: parsed.error.issues.map((issue) => ({
        field: `statement.${issue.path.join(".")}`.replace(/\.$/, ""),
        detail: issue.message,
      })),
    },
  );
}
