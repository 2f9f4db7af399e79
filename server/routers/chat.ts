import { sendMessage, streamMessage } from "@/server/chat/chat";
import { listMessages, listThreads } from "@/server/chat/history";
import {
  chatInputSchema,
  chatReplySchema,
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "@/server/chat/schema";
import { adminProcedure, publicProcedure, router } from "@/server/trpc";

export const chatRouter = router({
  /** Public, like GET /{aid}/chat: the agent's quota is what bounds it. */
  send: publicProcedure
    .input(chatInputSchema)
    .output(chatReplySchema)
    .mutation(({ ctx, input, signal }) => sendMessage(ctx, input, signal)),

  /**
   * The reply as it is produced (start, deltas, done). No `.output()`: tRPC would try to parse
   * the generator itself; the events are typed by `ChatEvent`.
   */
  stream: publicProcedure
    .input(chatInputSchema)
    .mutation(({ ctx, input, signal }) => streamMessage(ctx, input, signal)),

  threads: adminProcedure
    .input(listThreadsInputSchema)
    .output(listThreadsOutputSchema)
    .query(({ ctx, input }) => listThreads(ctx, input)),

  messages: adminProcedure
    .input(listMessagesInputSchema)
    .output(listMessagesOutputSchema)
    .query(({ ctx, input }) => listMessages(ctx, input)),
});
