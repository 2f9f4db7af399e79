// GET /v1/models: the agents a caller may chat with, as OpenAI's models.

export {
  askedAid,
  checkTokenBound,
  getModel,
  inModelTerms,
  keyAgent,
  listModels,
  modelNotFound,
} from "./models";
export * from "./schema";
