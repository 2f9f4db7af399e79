import { overview, overviewSchema } from "@/server/dashboard";
import { healthOf, healthSchema } from "@/server/health";
import { adminProcedure, router } from "@/server/trpc";

export const dashboardRouter = router({
  overview: adminProcedure
    .output(overviewSchema.extend({ health: healthSchema }))
    .query(async ({ ctx }) => ({ ...(await overview(ctx)), health: await healthOf(ctx) })),
});
