/**
 * The tRPC procedures: one per capability, thin (input and output schemas, access, a call into a
 * domain). The dashboard calls them over /api/trpc, the REST handlers through createProcedureCaller. This
 * index is the folder's public surface: import the folder, not its files (docs/architecture.md).
 */

export type { AppRouter, ProcedureCaller } from "./app";
export { appRouter, createProcedureCaller } from "./app";
