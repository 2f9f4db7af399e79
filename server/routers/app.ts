import { createCallerFactory, router } from "@/server/frame/trpc";
import { a2aRouter } from "./a2a";
import { adminsRouter } from "./admins";
import { agentKeysRouter } from "./agent-keys";
import { agentsRouter } from "./agents";
import { approvalsRouter } from "./approvals";
import { auditRouter } from "./audit";
import { authRouter } from "./auth";
import { chatRouter } from "./chat";
import { completionsRouter } from "./completions";
import { dashboardRouter } from "./dashboard";
import { deploymentsRouter } from "./deployments";
import { healthRouter } from "./health";
import { mcpRouter } from "./mcp";
import { noncesRouter } from "./nonces";
import { openaiModelsRouter } from "./openai-models";
import { pricesRouter } from "./prices";
import { requestLogRouter } from "./request-log";
import { responsesRouter } from "./responses";
import { runsRouter } from "./runs";
import { threadsRouter } from "./threads";
import { toolsRouter } from "./tools";
import { usageRouter } from "./usage";
import { webhooksRouter } from "./webhooks";

// In this order the OpenAPI document lists the operations, grouped by router.
export const appRouter = router({
  agents: agentsRouter,
  tools: toolsRouter,
  approvals: approvalsRouter,
  runs: runsRouter,
  chat: chatRouter,
  completions: completionsRouter,
  responses: responsesRouter,
  mcp: mcpRouter,
  a2a: a2aRouter,
  openaiModels: openaiModelsRouter,
  threads: threadsRouter,
  agentKeys: agentKeysRouter,
  usage: usageRouter,
  requestLog: requestLogRouter,
  audit: auditRouter,
  prices: pricesRouter,
  admins: adminsRouter,
  nonces: noncesRouter,
  deployments: deploymentsRouter,
  webhooks: webhooksRouter,
  health: healthRouter,
  auth: authRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;

/**
 * The procedures called in-process (tRPC's server-side caller), as the REST handlers call them:
 * `procedures.agents.list(input)`. Not to be confused with a chat's caller (server/callers).
 */
export const createProcedureCaller = createCallerFactory(appRouter);

export type ProcedureCaller = ReturnType<typeof createProcedureCaller>;
