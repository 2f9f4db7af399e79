import { z } from "zod";
import { INT4_MAX, wholeNumber, wholeNumberParam } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";
import {
  jsonWithoutLoneSurrogate,
  jsonWithoutNul,
  LONE_SURROGATE_RULE,
  NUL_RULE,
  storableString,
} from "@/server/kit/text";
import { addressSchema } from "@/server/kit/wallet-address";
import { includeTotalParam, pageOutputFields, pageParams } from "@/server/pagination/schema";
import { DEPLOYMENT_STATUSES, DETAILS_MAX_BYTES, jsonBytes, RECORD_HISTORY_LENGTH } from "./view";

export const statusSchema = z.enum(DEPLOYMENT_STATUSES, {
  error: `must be one of ${DEPLOYMENT_STATUSES.join(", ")}`,
});

const detailsSchema = z
  .record(z.string(), z.unknown(), { error: "must be a JSON object" })
  .refine(jsonWithoutNul, NUL_RULE)
  .refine(jsonWithoutLoneSurrogate, LONE_SURROGATE_RULE);

/** What the bound on a deployment's details says, in a refusal and in the API reference. */
export const DETAILS_RULE = `must be at most ${DETAILS_MAX_BYTES} bytes (${DETAILS_MAX_BYTES / 1024} KiB) as JSON`;

/** A deployment's details, or a change to them: bounded alone here, and once merged when applied. */
const deploymentDetailsSchema = detailsSchema.refine(
  (details) => jsonBytes(details) <= DETAILS_MAX_BYTES,
  DETAILS_RULE,
);

const whole = (what: string) => z.int({ error: `must be a whole number (${what})` });
const amount = (what: string) => z.number({ error: `must be a number (${what})` });

export const proposalSchema = z
  .strictObject({
    init_cost: whole("initial cost").min(0, "must be 0 or more"),
    maintenance_cost: whole("maintenance cost").min(0, "must be 0 or more"),
    pay_period: whole("pay period").min(0, "must be 0 or more"),
    accept_currency: storableString("must be a currency code").min(1).max(32),
    cost: amount("cost").min(0, "must be 0 or more"),
    fit: amount("fit"),
    throughput: amount("throughput").min(0, "must be 0 or more"),
    sla: amount("SLA").min(0, "must be 0 or more"),
    error_rate: amount("a fraction")
      .min(0, "must be a fraction from 0 to 1")
      .max(1, "must be a fraction from 0 to 1"),
    rank: whole("rank"),
    extra_attribute: detailsSchema.default({}),
  })
  .meta({ id: "Proposal" });

export const createDeploymentInputSchema = z.strictObject({
  request_id: storableString()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Unique; generated when left out." }),
  user_address: addressSchema.meta({ description: "The owner." }),
  worker_name: storableString().min(1).max(200).optional(),
  worker_uuid: storableString().min(1).max(200).optional(),
  proposal_hash: storableString().min(1).max(200).optional(),
  proposal_id: wholeNumber(0, INT4_MAX).optional(),
  deployment_details: deploymentDetailsSchema
    .optional()
    .meta({ description: `Free-form; ${DETAILS_RULE}.` }),
  proposal: proposalSchema,
  worker_address: addressSchema.optional().meta({
    description:
      "The worker it is assigned to from the start; left out, the first allowed worker that signs pick_up claims it.",
  }),
});

/** The deployment record exactly as the interface gives it (note `Status`), plus assignment and times. */
export const deploymentSchema = z
  .object({
    id: z.int(),
    request_id: z.string(),
    user_address: z.string(),
    worker_name: z.string().nullable(),
    worker_uuid: z.string().nullable(),
    proposal_hash: z.string().nullable(),
    proposal_id: z.int().nullable(),
    deployment_details: z.record(z.string(), z.unknown()).meta({
      description: `Merged key by key from every change; ${DETAILS_RULE} once merged.`,
    }),
    proposal: z.record(z.string(), z.unknown()),
    Status: statusSchema,
    worker_address: z
      .string()
      .nullable()
      .meta({ description: "The worker that claimed it; null until pick_up." }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: "Deployment" });

export type Deployment = z.infer<typeof deploymentSchema>;

export const historyEntrySchema = z
  .object({
    id: z.int(),
    from_status: statusSchema.nullable(),
    to_status: statusSchema,
    signer_address: z.string(),
    nonce: z.string(),
    deployment_details: z.record(z.string(), z.unknown()).nullable(),
    created_at: isoDateTime,
  })
  .meta({ id: "DeploymentHistoryEntry", description: "One change of a deployment's status." });

export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const deploymentWithHistorySchema = deploymentSchema
  .extend({
    history: z.array(historyEntrySchema).meta({
      description: `The last ${RECORD_HISTORY_LENGTH} changes, oldest first; GET /v1/deployments/{id}/history pages through all of them.`,
    }),
    history_total: z.int().meta({
      description:
        "How many changes the deployment has had: more than `history` holds when it is older than its last changes.",
    }),
  })
  .meta({ id: "DeploymentWithHistory" });

export const historyPageSchema = z
  .object({
    history: z.array(historyEntrySchema).meta({ description: "Newest first." }),
    ...pageOutputFields("changes"),
  })
  .meta({ id: "DeploymentHistoryPage" });

export const listDeploymentsInputSchema = z.strictObject({
  ...pageParams(500, 50),
  user_address: addressSchema.optional(),
  status: statusSchema.optional(),
  // The range a deployment's proposal_id can have (see createDeploymentInputSchema).
  proposal_id: wholeNumberParam(0, INT4_MAX).optional(),
  include_total: includeTotalParam("deployments"),
});

export const listDeploymentsOutputSchema = z.object({
  deployments: z.array(deploymentSchema),
  ...pageOutputFields("deployments"),
});

/** A deployment's id: its `serial` column holds 1 to INT4_MAX. */
export const deploymentIdSchema = wholeNumber(1, INT4_MAX, "a deployment id: a whole number");

export const deploymentIdInputSchema = z.strictObject({
  id: wholeNumberParam(1, INT4_MAX, "a deployment id: a whole number"),
});

/** A page of a deployment's history, newest first, as every listing pages. */
export const historyPageInputSchema = deploymentIdInputSchema.extend({
  ...pageParams(100, 50),
  include_total: includeTotalParam("changes"),
});

/** Body of POST /v1/deployments/worker/status: the change itself is inside the signed message. */
export const statusUpdateInputSchema = z
  .strictObject({
    user_address: addressSchema,
    signature: z
      .string({ error: "must be a 0x-prefixed hex signature" })
      .regex(/^0x[0-9a-fA-F]+$/, "must be a 0x-prefixed hex signature")
      .max(100_000),
    siwe_msg: z.string({ error: "must be the signed EIP-4361 message" }).min(1).max(20_000),
    privy_token: z.string().max(10_000).nullish().meta({
      description:
        "A Privy token, checked when Privy is configured: an identity token must list the signing wallet among its linked accounts; with PRIVY_REQUIRED it must be such an identity token.",
    }),
  })
  .meta({ id: "StatusUpdate" });

/** The statement of the signed message: a JSON object naming the deployment and the new status. */
export const statusStatementSchema = z.object({
  request_id: storableString("must be the deployment's request_id").min(1).max(200),
  status: statusSchema,
  deployment_details: deploymentDetailsSchema.optional(),
  worker_name: storableString().min(1).max(200).optional(),
  worker_uuid: storableString().min(1).max(200).optional(),
});

export type StatusStatement = z.infer<typeof statusStatementSchema>;

export const changeOptionsInputSchema = deploymentIdInputSchema.extend({
  signer: addressSchema.meta({ description: "The wallet that would sign the change." }),
});

export const changeOptionsSchema = z.object({
  statuses: z.array(statusSchema),
  reason: z.string().nullable().meta({ description: "Why there is no change to offer." }),
  privy_token: z.enum(["ignored", "optional", "required"]),
});

/** An admin's status change: the workers' status machine, the admin's credentials its authority. */
export const adminStatusChangeInputSchema = deploymentIdInputSchema
  .extend({
    status: statusSchema,
    deployment_details: deploymentDetailsSchema.optional().meta({
      description: `Merged into the deployment's details, as a worker's change does; the merged details ${DETAILS_RULE}.`,
    }),
  })
  .meta({ id: "AdminStatusChange" });
