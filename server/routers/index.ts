// The tRPC procedures, thin: schemas, access, a call into a domain. The dashboard calls them over
// /api/trpc, the REST handlers through createProcedureCaller.

export type { AppRouter, ProcedureCaller } from "./app";
export { appRouter, createProcedureCaller } from "./app";
