import pino, { type Logger } from "pino";
import { workerSlot } from "./worker.ts";

/**
 * The service's log: JSON lines (pino) on stdout, one per request and one per event worth an
 * operator's attention. LOG_LEVEL sets the level (default `info`); under `npm run dev` in a
 * terminal the lines are printed readably (pino-pretty). Nothing logged carries a key, a
 * cookie, a signature, a prompt or a reply: callers pass ids and counts, never contents, and
 * the redaction below is a second line of defence.
 */

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function createLog(): Logger {
  const wanted = process.env.LOG_LEVEL?.trim() || "info";
  const level = (LEVELS as readonly string[]).includes(wanted) ? wanted : "info";
  const pretty = process.stdout.isTTY === true && process.env.NODE_ENV !== "production";
  return pino(
    {
      level,
      // A web worker's lines say which of the instance's workers wrote them.
      base: { service: "agent-service", pid: process.pid, ...withWorker() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: ["authorization", "cookie", "key", "*.authorization", "*.cookie", "*.key"],
        censor: "[redacted]",
      },
    },
    pretty ? pino.transport({ target: "pino-pretty", options: { colorize: true } }) : undefined,
  );
}

function withWorker(): { worker?: number } {
  const slot = workerSlot();
  return slot === undefined ? {} : { worker: slot };
}

// One logger per process, though Next.js may load this module in more than one server chunk.
const global = globalThis as unknown as { agentServiceLog?: Logger };
if (!global.agentServiceLog) global.agentServiceLog = createLog();
export const log: Logger = global.agentServiceLog;

export { LEVELS as LOG_LEVELS };
