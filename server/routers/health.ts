import { healthOf, healthSchema } from "@/server/health";
import { publicProcedure, router } from "@/server/trpc";

export const healthRouter = router({
  check: publicProcedure.output(healthSchema).query(({ ctx }) => healthOf(ctx)),
});
