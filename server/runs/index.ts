/**
 * Autonomous runs (GET and POST /agents/{aid}/runs): the scheduler that claims due agents, runs
 * their prompts and records each run, and the runs' history. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */

export { claimDueRuns } from "./claim";
export { executeRun, runNow } from "./execute";
export { listRuns, presentRun, summarizeRuns } from "./history";
export { Scheduler } from "./scheduler";
export * from "./schema";
export { sweepInterruptedRuns } from "./sweep";
