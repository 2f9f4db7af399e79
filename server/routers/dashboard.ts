import { overview, overviewSchema } from "@/server/dashboard/overview";
import { checkHealth, healthSchema } from "@/server/health/health";
import { adminProcedure, router } from "@/server/trpc";

export const dashboardRouter = router({
  overview: adminProcedure
    .output(overviewSchema.extend({ health: healthSchema }))
    .query(async ({ ctx }) => ({
      ...(await overview(ctx)),
      health: await checkHealth({
        db: ctx.db,
        startedAt: ctx.startedAt,
        now: ctx.clock.now(),
        databaseKind: ctx.databaseKind,
        provider: ctx.chat.provider.name,
      }),
    })),
});
