import { adminProcedure, router } from "@/server/frame/trpc";
import {
  listRequests,
  listRequestsInputSchema,
  listRequestsOutputSchema,
  requestBreakdown,
  requestBreakdownInputSchema,
  requestBreakdownSchema,
} from "@/server/requests";

/** GET /requests: the request log, newest first, filtered (admin). */
export const requestsRouter = router({
  list: adminProcedure
    .input(listRequestsInputSchema)
    .output(listRequestsOutputSchema)
    .query(({ ctx, input }) => listRequests(ctx, input)),

  /** GET /requests/breakdown: the log grouped by model or by key (admin). */
  breakdown: adminProcedure
    .input(requestBreakdownInputSchema)
    .output(requestBreakdownSchema)
    .query(({ ctx, input }) => requestBreakdown(ctx, input)),
});
