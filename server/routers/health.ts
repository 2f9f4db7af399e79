import { checkHealth, healthSchema } from "@/server/health/health";
import { publicProcedure, router } from "@/server/trpc";

export const healthRouter = router({
  check: publicProcedure.output(healthSchema).query(({ ctx }) =>
    checkHealth({
      db: ctx.db,
      startedAt: ctx.startedAt,
      now: ctx.clock.now(),
      databaseKind: ctx.databaseKind,
      provider: ctx.chat.provider.name,
    }),
  ),
});
