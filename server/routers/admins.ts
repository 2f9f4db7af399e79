import { z } from "zod";
import {
  adminKeyRefSchema,
  adminListSchema,
  adminRefSchema,
  adminSchema,
  createAdmin,
  createAdminInputSchema,
  createAdminKey,
  createAdminKeyInputSchema,
  createdAdminKeySchema,
  deleteAdmin,
  getAdmin,
  listAdmins,
  revokeAdminKey,
  updateAdmin,
  updateAdminInputSchema,
} from "@/server/admins";
import { ownerProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, empty, jsonBodyErrors, problem, rest } from "@/server/http";
import * as examples from "./examples-admins";

/** The people who administer the service, their roles and their own keys (owners change them). */

const unknownAdmin = problem("There is no such admin.");

export const adminsRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/admins",
        operationId: "listAdmins",
        summary:
          "The admins: each person's wallet, email, role and keys (never the keys' secrets).",
        answers: { 200: { description: "Every admin, oldest first." } },
        refusals: { ...adminErrors },
      }),
    )
    .output(adminListSchema)
    .query(({ ctx }) => listAdmins(ctx)),

  get: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/admins/{id}",
        operationId: "getAdmin",
        summary: "One admin, with their keys (never the keys' secrets).",
        answers: { 200: { description: "The admin.", examples: examples.admin } },
        refusals: { 400: problem("A malformed id."), ...adminErrors, 404: unknownAdmin },
      }),
    )
    .input(adminRefSchema)
    .output(adminSchema)
    .query(({ ctx, input }) => getAdmin(ctx, input.id)),

  create: ownerProcedure
    .meta(
      rest({
        method: "POST",
        path: "/admins",
        idempotent: true,
        operationId: "createAdmin",
        summary: "Add a person as an admin with a role: known by a wallet, an email or both.",
        description:
          "A wallet signs in to the dashboard with Sign-In with Ethereum; an email with SSO, when the identity provider says it is verified. Wallets in ADMIN_ADDRESSES are owners whatever their entry says.",
        body: { required: true, examples: examples.createAdmin },
        status: 201,
        answers: { 201: { description: "Added.", examples: examples.admin } },
        refusals: {
          400: problem("Missing or invalid fields (no wallet and no email, an unknown role)."),
          ...adminErrors,
          409: problem("Another admin has that wallet or email, or there are 1,000 admins."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(createAdminInputSchema)
    .output(adminSchema)
    .mutation(({ ctx, input }) => createAdmin(ctx, input)),

  update: ownerProcedure
    .meta(
      rest({
        method: "PATCH",
        path: "/admins/{id}",
        operationId: "updateAdmin",
        summary:
          "Change an admin's name, wallet, email or role; a lower role lowers their keys and sessions at once.",
        body: { required: true, examples: { promote: { value: { role: "owner" } } } },
        answers: { 200: { description: "The admin as changed." } },
        refusals: {
          400: problem("Invalid fields, or neither a wallet nor an email left."),
          ...adminErrors,
          404: unknownAdmin,
          409: problem("Another admin has that wallet or email."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(updateAdminInputSchema)
    .output(adminSchema)
    .mutation(({ ctx, input }) => updateAdmin(ctx, input)),

  delete: ownerProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/admins/{id}",
        operationId: "deleteAdmin",
        summary:
          "Remove an admin: their keys stop working and the sessions opened with them end, at once.",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Removed.", empty: true } },
        refusals: { 400: problem("A malformed id."), ...adminErrors, 404: unknownAdmin },
      }),
    )
    .input(adminRefSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAdmin(ctx, input.id)),

  createKey: ownerProcedure
    .meta(
      rest({
        method: "POST",
        path: "/admins/{id}/keys",
        idempotent: true,
        operationId: "createAdminKey",
        summary:
          "Make an admin's own API key, with a role no higher than theirs and an expiry; the key is in the answer, and only there.",
        body: { required: true, examples: examples.createAdminKey },
        status: 201,
        answers: { 201: { description: "Made.", examples: examples.createdAdminKey } },
        refusals: {
          400: problem(
            "Missing or invalid fields: a role above the person's, an expiry past or more than 366 days ahead.",
          ),
          ...adminErrors,
          404: unknownAdmin,
          409: problem("The admin has 50 keys already."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(createAdminKeyInputSchema)
    .output(createdAdminKeySchema)
    .mutation(({ ctx, input }) => createAdminKey(ctx, input)),

  revokeKey: ownerProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/admins/{id}/keys/{key_id}",
        operationId: "revokeAdminKey",
        summary: "Revoke an admin's key: it and the sessions opened with it stop working at once.",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Revoked.", empty: true } },
        refusals: {
          400: problem("A malformed id or key id."),
          ...adminErrors,
          404: problem("No such admin, or no such key of theirs."),
        },
      }),
    )
    .input(adminKeyRefSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeAdminKey(ctx, input)),
});
