import { listRequests, listRequestsInputSchema, listRequestsOutputSchema } from "@/server/requests";
import { adminProcedure, router } from "@/server/trpc";

/** GET /requests: the request log, newest first, filtered (admin). */
export const requestsRouter = router({
  list: adminProcedure
    .input(listRequestsInputSchema)
    .output(listRequestsOutputSchema)
    .query(({ ctx, input }) => listRequests(ctx, input)),
});
