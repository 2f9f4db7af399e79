import {
  adminSchema,
  createAdminInputSchema,
  createAdminKeyInputSchema,
  createdAdminKeySchema,
} from "@/server/admins";
import { example } from "@/server/http";

/** Real requests and answers of the service for admins and their keys. */

const ADMIN = {
  id: "adm_3f9a1c0d2b4e",
  name: "Ada Lovelace",
  wallet: null,
  email: "ada@example.com",
  role: "operator" as const,
  keys: [],
  created_at: "2026-11-29T09:12:40.511Z",
  updated_at: "2026-11-29T09:12:40.511Z",
};

export const createAdmin = {
  byEmail: example(createAdminInputSchema, "An operator who signs in with SSO", {
    name: "Ada Lovelace",
    email: "ada@example.com",
    role: "operator",
  }),
  byWallet: example(createAdminInputSchema, "A viewer who signs in with a wallet", {
    name: "Grace Hopper",
    wallet: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
    role: "viewer",
  }),
};

export const admin = { created: example(adminSchema, "The person, with no keys yet", ADMIN) };

export const createAdminKey = {
  laptop: example(createAdminKeyInputSchema.omit({ id: true }), "A key for a laptop, 30 days", {
    name: "laptop",
    expires_at: "2026-12-29T00:00:00Z",
  }),
  readOnly: example(createAdminKeyInputSchema.omit({ id: true }), "A read-only key for a report", {
    name: "weekly report",
    role: "viewer",
  }),
};

export const createdAdminKey = {
  made: example(createdAdminKeySchema, "The key, shown this once", {
    id: "9c41e07d5a2b",
    admin_id: ADMIN.id,
    name: "laptop",
    role: "operator",
    created_at: "2026-11-29T09:13:02.004Z",
    expires_at: "2026-12-29T00:00:00.000Z",
    expired: false,
    key: "admk_9c41e07d5a2b_Vn3mJ0qk7Gx2TzYbR8wLp4sEoA1cHdU6iKfM9yNjQe5",
  }),
};
