import { z } from "zod";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { addressSchema } from "@/server/kit/wallet-address";

export const nonceInputSchema = z.strictObject({ user_address: addressSchema });

export const nonceOutputSchema = z
  .object({ nonce: z.string(), user_address: z.string(), expires_at: isoDateTime })
  .meta({ id: "Nonce" });
