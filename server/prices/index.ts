// Model prices, and MODEL_PRICES applied at start-up.

export { applyConfiguredPrices, deletePrice, listPrices, setPrice } from "./prices";
export * from "./schema";
