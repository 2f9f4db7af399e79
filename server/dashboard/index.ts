/**
 * The dashboard overview's figures. This index is the folder's public surface: import the folder,
 * not its files (docs/architecture.md).
 */
export { overview, overviewSchema } from "./overview";
