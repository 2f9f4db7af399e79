import {
  chatInputSchema,
  chatReplySchema,
  checkChat,
  sendMessage,
  streamMessage,
} from "@/server/chat";
import { mappedStream, parsedSynchronously, publicProcedure, router } from "@/server/frame/trpc";

const chatInput = parsedSynchronously(chatInputSchema);

export const chatRouter = router({
  /** Public, like GET /{aid}/chat: the agent's quota is what bounds it. */
  send: publicProcedure
    .input(chatInput)
    .output(parsedSynchronously(chatReplySchema))
    .mutation(({ ctx, input, signal }) => sendMessage(ctx, input, signal)),

  /**
   * The reply as it is produced (start, deltas, done). No `.output()`: tRPC would try to parse
   * the generator itself; the events are typed by `ChatEvent`. Refusals keep their status.
   */
  stream: publicProcedure
    .input(chatInput)
    .mutation(({ ctx, input, signal }) => mappedStream(streamMessage(ctx, input, signal))),

  /** What HEAD /{aid}/chat answers: the question is valid and the agent exists; nothing else. */
  check: publicProcedure.input(chatInput).query(({ ctx, input }) => checkChat(ctx, input)),
});
