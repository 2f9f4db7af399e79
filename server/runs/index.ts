/**
 * Autonomous runs (GET and POST /agents/{aid}/runs): the scheduler that claims due agents, runs
 * their prompts and records each run, and the runs' history. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */

export { listRuns, presentRun, summarizeRuns } from "./history";
export { claimDueRuns, executeRun, runNow, sweepInterruptedRuns } from "./runs";
export { Scheduler } from "./scheduler";
export * from "./schema";
