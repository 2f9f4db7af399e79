// The people who administer the service: their roles and their personal API keys.
export { ADMIN_KEY_PREFIX, type PresentedAdminKey, parseAdminKey } from "./format";
export { type AdminByKey, createAdminKey, findAdminKey, revokeAdminKey } from "./keys";
export { ADMIN_ROLES, type AdminRole, higherRole, lowerRole, roleAtLeast } from "./roles";
export * from "./schema";
export {
  createAdmin,
  deleteAdmin,
  findAdminByEmail,
  findAdminByWallet,
  getAdmin,
  listAdmins,
  updateAdmin,
} from "./store";
