/**
 * Worker deployments: create, list, read, and the signed status update with its permissions and
 * status machine. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export { changeStatusAsAdmin } from "./admin-change";
export { changeOptions } from "./change-options";
export { createDeployment, getDeployment, listDeployments } from "./deployments";
export * from "./schema";
export { updateStatus } from "./status-update";
export * from "./view";
