import { createCallerFactory, router } from "@/server/frame/trpc";
import { agentsRouter } from "./agents";
import { authRouter } from "./auth";
import { chatRouter } from "./chat";
import { completionsRouter } from "./completions";
import { dashboardRouter } from "./dashboard";
import { deploymentsRouter } from "./deployments";
import { healthRouter } from "./health";
import { keysRouter } from "./keys";
import { modelsRouter } from "./models";
import { noncesRouter } from "./nonces";
import { pricesRouter } from "./prices";
import { requestsRouter } from "./requests";
import { runsRouter } from "./runs";
import { threadsRouter } from "./threads";
import { toolsRouter } from "./tools";
import { usageRouter } from "./usage";
import { webhooksRouter } from "./webhooks";

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  nonces: noncesRouter,
  agents: agentsRouter,
  chat: chatRouter,
  completions: completionsRouter,
  models: modelsRouter,
  threads: threadsRouter,
  keys: keysRouter,
  prices: pricesRouter,
  usage: usageRouter,
  requests: requestsRouter,
  tools: toolsRouter,
  runs: runsRouter,
  deployments: deploymentsRouter,
  dashboard: dashboardRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;

/**
 * The procedures called in-process (tRPC's server-side caller), as the REST handlers call them:
 * `procedures.agents.list(input)`. Not to be confused with a chat's caller (server/callers).
 */
export const createProcedureCaller = createCallerFactory(appRouter);

export type ProcedureCaller = ReturnType<typeof createProcedureCaller>;
