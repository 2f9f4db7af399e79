import { publicProcedure, router } from "@/server/frame/trpc";
import { healthOf, healthSchema } from "@/server/health";

export const healthRouter = router({
  check: publicProcedure.output(healthSchema).query(({ ctx }) => healthOf(ctx)),
});
