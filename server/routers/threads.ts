import {
  listMessages,
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreads,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "@/server/threads";
import { adminProcedure, router } from "@/server/trpc";

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
