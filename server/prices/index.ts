/**
 * Model prices (GET /prices, PUT and DELETE /prices/{model}), and MODEL_PRICES applied at start-
 * up. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export { applyConfiguredPrices, deletePrice, listPrices, setPrice } from "./prices";
export * from "./schema";
