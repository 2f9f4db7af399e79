// Tool calls that wait for a person's approval: the paused turns, their approvals and decisions.
export { pauseAgain, resumedCall, resumedExchange, turnProblem } from "./resume";
export * from "./schema";
export {
  type ClaimedTurn,
  decideApproval,
  decidingScope,
  endTurn,
  endWaitingRunTurn,
  expireTurns,
  listApprovals,
  pauseTurn,
  type TurnOwner,
  type TurnState,
} from "./store";
