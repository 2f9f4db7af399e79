import { ADMIN_ROLES, type AdminRole } from "@/db/enums";

export { ADMIN_ROLES, type AdminRole };

/** What each role may do, in the words the service's own refusals use. */
export const ROLE_WORDS: Record<AdminRole, string> = {
  viewer: "Viewer: reads everything but secrets, changes nothing",
  operator: "Operator: agents, keys, quotas, prices, webhooks and deployments",
  owner: "Owner: everything, admins and their roles included",
};

/** The roles up to `highest`: a key is never given more than its person has. */
export const rolesUpTo = (highest: AdminRole): AdminRole[] =>
  ADMIN_ROLES.slice(0, ADMIN_ROLES.indexOf(highest) + 1);

export const isRole = (value: string): value is AdminRole =>
  (ADMIN_ROLES as readonly string[]).includes(value);
