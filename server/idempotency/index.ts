// Idempotency-Key on the operations that create or spend: a retry replays the first answer.

export {
  answerIdempotently,
  IDEMPOTENCY_KEY_HEADER,
  type IdempotentRequest,
  idempotencyKeyOf,
  REPLAYED_HEADER,
} from "./answer";
export {
  type Claim,
  claimKey,
  IDEMPOTENCY_KEY_TTL_MS,
  keepAnswer,
  purgeOldIdempotencyKeys,
  releaseClaim,
  releaseEveryClaim,
} from "./store";
