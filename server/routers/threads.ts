import { adminProcedure, router } from "@/server/frame/trpc";
import {
  listMessages,
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreads,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "@/server/threads";

/** GET /agents/{aid}/threads and a thread's messages: every caller's conversations (admin). */
export const threadsRouter = router({
  list: adminProcedure
    .input(listThreadsInputSchema)
    .output(listThreadsOutputSchema)
    .query(({ ctx, input }) => listThreads(ctx, input)),

  messages: adminProcedure
    .input(listMessagesInputSchema)
    .output(listMessagesOutputSchema)
    .query(({ ctx, input }) => listMessages(ctx, input)),
});
