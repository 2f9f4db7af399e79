import { overview, overviewSchema } from "@/server/dashboard";
import { router, viewerProcedure } from "@/server/frame/trpc";
import { healthOf, healthSchema } from "@/server/health";

export const dashboardRouter = router({
  overview: viewerProcedure
    .output(overviewSchema.extend({ health: healthSchema }))
    .query(async ({ ctx }) => ({ ...(await overview(ctx)), health: await healthOf(ctx) })),
});
