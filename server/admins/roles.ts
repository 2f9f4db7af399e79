import { ADMIN_ROLES, type AdminRole } from "@/db/enums";

export { ADMIN_ROLES, type AdminRole };

const rank = (role: AdminRole) => ADMIN_ROLES.indexOf(role);

/** Whether `role` may do what `needed` may: owner ⊃ operator ⊃ viewer. */
export function roleAtLeast(role: string, needed: AdminRole): boolean {
  return (
    (ADMIN_ROLES as readonly string[]).includes(role) && rank(role as AdminRole) >= rank(needed)
  );
}

export function lowerRole(a: AdminRole, b: AdminRole): AdminRole {
  return rank(a) <= rank(b) ? a : b;
}

export function higherRole(a: AdminRole, b: AdminRole): AdminRole {
  return rank(a) >= rank(b) ? a : b;
}
