// Worker deployments, and their signed status updates with permissions and status machine.

export { changeStatusAsAdmin } from "./admin-change";
export { changeOptions } from "./change-options";
export { createDeployment, getDeployment, listDeployments, listHistory } from "./deployments";
export * from "./schema";
export { updateStatus } from "./status-update";
export * from "./view";
