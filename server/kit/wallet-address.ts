import { z } from "zod";

/** A wallet's address, as deployments, nonces and sign-in take it. */
export const addressSchema = z
  .string({ error: "must be a 0x-prefixed Ethereum address" })
  // What viem's isAddress checks without `strict` (mixed case need not be a checksum), as a
  // pattern, so the OpenAPI document shows it.
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed Ethereum address of 40 hex digits")
  .meta({ examples: ["0x5B38Da6a701c568545dCfcB03FcB875f56beddC4"] });
