// Agents' own model endpoints: stored with their keys sealed, tried in order with circuits.
export { type EndpointsRuntime, endpointsProvider } from "./fallback";
export * from "./schema";
export { presentEndpoints, storeEndpoints } from "./stored";
