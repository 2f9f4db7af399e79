import { agentsRouter } from "@/server/routers/agents";
import { authRouter } from "@/server/routers/auth";
import { autonomousRouter } from "@/server/routers/autonomous";
import { chatRouter } from "@/server/routers/chat";
import { dashboardRouter } from "@/server/routers/dashboard";
import { deploymentsRouter } from "@/server/routers/deployments";
import { healthRouter } from "@/server/routers/health";
import { keysRouter } from "@/server/routers/keys";
import { pricesRouter } from "@/server/routers/prices";
import { toolsRouter } from "@/server/routers/tools";
import { usageRouter } from "@/server/routers/usage";
import { createCallerFactory, router } from "@/server/trpc";

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  agents: agentsRouter,
  chat: chatRouter,
  keys: keysRouter,
  prices: pricesRouter,
  usage: usageRouter,
  tools: toolsRouter,
  autonomous: autonomousRouter,
  deployments: deploymentsRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

export type Caller = ReturnType<typeof createCaller>;
