import { agentsRouter } from "@/server/routers/agents";
import { healthRouter } from "@/server/routers/health";
import { createCallerFactory, router } from "@/server/trpc";

export const appRouter = router({
  health: healthRouter,
  agents: agentsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

export type Caller = ReturnType<typeof createCaller>;
