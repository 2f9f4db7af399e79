import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { logStreams } from "./log-stream.ts";
import { workerSlot } from "./worker.ts";

/**
 * The service's log: JSON lines (pino) on stdout. Nothing logged carries a key, a cookie, a
 * signature, a prompt or a reply: callers pass ids and counts, and the redaction below is a second
 * line of defence. The request lines have a logger of their own: their fields are fixed
 * (access-log.ts), and they are written in batches (log-stream.ts).
 */

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

type Logs = { log: Logger; requestLog: Logger };

function createLogs(): Logs {
  const wanted = process.env.LOG_LEVEL?.trim() || "info";
  const level = (LEVELS as readonly string[]).includes(wanted) ? wanted : "info";
  const pretty = process.stdout.isTTY === true && process.env.NODE_ENV !== "production";
  const options: LoggerOptions = {
    level,
    // A web worker's lines say which of the instance's workers wrote them.
    base: { service: "agent-service", pid: process.pid, ...withWorker() },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  let streams: { immediate: DestinationStream; batched: DestinationStream };
  if (pretty) {
    const transport = pino.transport({ target: "pino-pretty", options: { colorize: true } });
    streams = { immediate: transport, batched: transport };
  } else streams = logStreams();
  return {
    log: pino(
      {
        ...options,
        redact: {
          paths: ["authorization", "cookie", "key", "*.authorization", "*.cookie", "*.key"],
          censor: "[redacted]",
        },
      },
      streams.immediate,
    ),
    requestLog: pino(options, streams.batched),
  };
}

function withWorker(): { worker?: number } {
  const slot = workerSlot();
  return slot === undefined ? {} : { worker: slot };
}

// One pair of loggers per process, though Next.js may load this module in more than one server
// chunk.
const global = globalThis as unknown as { agentServiceLogs?: Logs };
global.agentServiceLogs ??= createLogs();
export const log: Logger = global.agentServiceLogs.log;
/** The request lines' logger (access-log.ts): batched, and nothing in them to redact. */
export const requestLog: Logger = global.agentServiceLogs.requestLog;

export { LEVELS as LOG_LEVELS };
