import { overview, overviewSchema } from "@/server/dashboard/overview";
import { healthOf, healthSchema } from "@/server/health/health";
import { adminProcedure, router } from "@/server/trpc";

export const dashboardRouter = router({
  overview: adminProcedure
    .output(overviewSchema.extend({ health: healthSchema }))
    .query(async ({ ctx }) => ({ ...(await overview(ctx)), health: await healthOf(ctx) })),
});
