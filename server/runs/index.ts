// Autonomous runs: the scheduler that claims and executes them, and their history.

export { cancelRun } from "./cancel";
export { claimDueRuns } from "./claim";
export { executeRun, runNow } from "./execute";
export { failPausedRun } from "./fail";
export { listRuns, presentRun, summarizeRuns } from "./history";
export { type RunTurnOutcome, resumeRun } from "./resume";
export { Scheduler } from "./scheduler";
export * from "./schema";
export { sweepInterruptedRuns } from "./sweep";
