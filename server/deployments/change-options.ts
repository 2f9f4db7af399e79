import { eq } from "drizzle-orm";
import { getAddress } from "viem";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { deployments } from "@/db/schema";
import type { Session } from "@/server/auth";
import { isAdmin } from "@/server/auth";
import type { Config } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import { allowedChanges } from "./permissions";
import type { changeOptionsInputSchema, changeOptionsSchema } from "./schema";

/**
 * What the dashboard may offer a signer on one deployment, by the signed update's own rule, and
 * whether a Privy token must go with it. A wallet may ask only about itself and its deployments.
 */
export async function changeOptions(
  { db, config }: { db: Db; config: Pick<Config, "siwe" | "privy"> },
  input: z.output<typeof changeOptionsInputSchema>,
  session: Session,
): Promise<z.output<typeof changeOptionsSchema>> {
  const [row] = await db.select().from(deployments).where(eq(deployments.id, input.id));
  const owner = isAdmin(session) ? undefined : session.address;
  if (!row || (owner && row.userAddress !== getAddress(owner)))
    throw new AppError("deployment_not_found", `Deployment ${input.id} not found.`);
  const privy_token = !config.privy ? "ignored" : config.privy.required ? "required" : "optional";
  const signer = getAddress(input.signer);
  if (!isAdmin(session) && signer !== session.address) {
    return {
      statuses: [],
      reason: `You signed in as ${session.address}, but the wallet now connected is ${signer}: switch back to the first account in your wallet, or sign in again with this one.`,
      privy_token,
    };
  }
  return { ...allowedChanges(row, signer, config.siwe), privy_token };
}
