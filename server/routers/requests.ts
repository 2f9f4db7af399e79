import {
  listRequests,
  listRequestsInputSchema,
  listRequestsOutputSchema,
  requestBreakdown,
  requestBreakdownInputSchema,
  requestBreakdownSchema,
} from "@/server/requests";
import { adminProcedure, router } from "@/server/trpc";

export const requestsRouter = router({
  list: adminProcedure
    .input(listRequestsInputSchema)
    .output(listRequestsOutputSchema)
    .query(({ ctx, input }) => listRequests(ctx, input)),

  breakdown: adminProcedure
    .input(requestBreakdownInputSchema)
    .output(requestBreakdownSchema)
    .query(({ ctx, input }) => requestBreakdown(ctx, input)),
});
