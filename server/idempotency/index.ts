// Idempotency-Key on the operations that create or spend: a retry replays the first answer.

export { answerIdempotently, idempotencyKeyOf } from "./answer";
export {
  type Claim,
  claimKey,
  keepAnswer,
  purgeOldIdempotencyKeys,
  releaseClaim,
  releaseEveryClaim,
} from "./store";
