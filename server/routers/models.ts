import { publicProcedure, router } from "@/server/frame/trpc";
import {
  getModel,
  getModelInputSchema,
  listModels,
  listModelsInputSchema,
  listModelsOutputSchema,
  modelSchema,
} from "@/server/models";

export const modelsRouter = router({
  /** Public: what each caller sees is the agents it may chat with (server/models). */
  list: publicProcedure
    .input(listModelsInputSchema)
    .output(listModelsOutputSchema)
    .query(({ ctx, input }) => listModels(ctx, input)),

  get: publicProcedure
    .input(getModelInputSchema)
    .output(modelSchema)
    .query(({ ctx, input }) => getModel(ctx, input.model)),
});
