import {
  completionRequestSchema,
  completionResultSchema,
  createCompletion,
  streamCompletion,
} from "@/server/completions";
import { mappedStream, parsedSynchronously, publicProcedure, router } from "@/server/frame/trpc";

const completionRequest = parsedSynchronously(completionRequestSchema);

export const completionsRouter = router({
  /** Public, like GET /{aid}/chat: the agent's access rule and quota are what bound it. */
  create: publicProcedure
    .input(completionRequest)
    .output(parsedSynchronously(completionResultSchema))
    .mutation(({ ctx, input, signal }) => createCompletion(ctx, input, signal)),

  /** The completion as it is produced; no `.output()`, as for chat.stream. */
  stream: publicProcedure
    .input(completionRequest)
    .mutation(({ ctx, input, signal }) => mappedStream(streamCompletion(ctx, input, signal))),
});
