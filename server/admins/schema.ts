import { z } from "zod";
import { ADMIN_ROLES } from "@/db/enums";
import { instant } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { addressSchema } from "@/server/kit/wallet-address";

const ROLE_RULE = "must be owner, operator or viewer";

export const adminRoleSchema = z.enum(ADMIN_ROLES, { error: ROLE_RULE }).meta({
  description:
    "owner: everything, admins and roles included; operator: agents, keys, quotas, prices, webhooks, deployments; viewer: reads everything but secrets, writes nothing.",
});

const nameSchema = z
  .string({ error: "must be a name for the person, 1 to 100 characters" })
  .trim()
  .min(1, "must be a name for the person, 1 to 100 characters")
  .max(100, "must be at most 100 characters")
  .refine(withoutNul, NUL_RULE);

const walletSchema = addressSchema
  .transform((address) => address.toLowerCase())
  .meta({
    description: "The wallet the person signs in with (Sign-In with Ethereum); kept lowercase.",
  });

const emailSchema = z
  .email({ error: "must be an email address" })
  .max(254, "must be at most 254 characters")
  .transform((email) => email.toLowerCase())
  .meta({
    description:
      "The email an identity provider vouches for (a verified email) when the person signs in with SSO; kept lowercase.",
  });

const ID_RULE = "must be an admin's id (adm_ and 12 hex digits)";
const adminIdSchema = z
  .string({ error: ID_RULE })
  .regex(/^adm_[0-9a-f]{12}$/, ID_RULE)
  .meta({ description: "The admin's id.", examples: ["adm_3f9a1c0d2b4e"] });

const KEY_ID_RULE = "must be a key's id (12 hex digits, as the admin's keys list it)";

export const adminKeySchema = z
  .object({
    id: z.string().meta({ description: "The key's id: the key reads `admk_<id>_<secret>`." }),
    name: z.string(),
    role: adminRoleSchema,
    created_at: isoDateTime,
    expires_at: isoDateTime,
    expired: z.boolean(),
  })
  .meta({ id: "AdminKey" });

export const adminSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    wallet: z.string().nullable(),
    email: z.string().nullable(),
    role: adminRoleSchema,
    keys: z.array(adminKeySchema).meta({ description: "The person's API keys, without secrets." }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: "Admin" });

export const adminListSchema = z.object({ admins: z.array(adminSchema) }).meta({ id: "AdminList" });

export const createAdminInputSchema = z.strictObject({
  name: nameSchema,
  wallet: walletSchema.nullable().optional(),
  email: emailSchema.nullable().optional(),
  role: adminRoleSchema,
});

export const adminRefSchema = z.strictObject({ id: adminIdSchema });

export const updateAdminInputSchema = z.strictObject({
  id: adminIdSchema,
  name: nameSchema.optional(),
  wallet: walletSchema.nullable().optional(),
  email: emailSchema.nullable().optional(),
  role: adminRoleSchema.optional(),
});

export const MAX_KEY_DAYS = 366;

export const createAdminKeyInputSchema = z.strictObject({
  id: adminIdSchema,
  name: z
    .string({ error: "must be a name for the key (where it is used), 1 to 100 characters" })
    .trim()
    .min(1, "must be a name for the key (where it is used), 1 to 100 characters")
    .max(100, "must be at most 100 characters")
    .refine(withoutNul, NUL_RULE),
  role: adminRoleSchema.optional().meta({
    description: "At most the person's role; left out, the person's role.",
  }),
  expires_at: instant()
    .optional()
    .meta({
      description: `When the key stops working: ahead, and at most ${MAX_KEY_DAYS} days ahead; left out, 90 days from now.`,
    }),
});

export const createdAdminKeySchema = adminKeySchema
  .extend({
    admin_id: z.string(),
    key: z.string().meta({
      description:
        "The key itself, `admk_<id>_<secret>`: shown this once and stored only as a hash. Send it as `Authorization: Bearer <key>`.",
    }),
  })
  .meta({ id: "CreatedAdminKey" });

export const adminKeyRefSchema = z.strictObject({
  id: adminIdSchema,
  key_id: z
    .string({ error: KEY_ID_RULE })
    .regex(/^[0-9a-f]{12}$/, KEY_ID_RULE)
    .meta({ description: "The key's id." }),
});
