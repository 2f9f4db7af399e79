import pino, { type DestinationStream } from "pino";

/**
 * Where the log's lines go: stdout, through pino's asynchronous writer, which sends each line on
 * its own `fs.write` (a handoff to libuv's pool and one more wake-up). So the request lines, and
 * only they, are batched: written within BATCH_MS or once BATCH_BYTES wait. Any other line, and a
 * request line of level warn or above, is written at once after what waits, keeping the order.
 * Past MAX_UNWRITTEN_BYTES that stdout has not taken, pino drops lines rather than hold them.
 */

export const BATCH_MS = 100;
const BATCH_BYTES = 16 * 1024;
const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;
const WARN = 40;

type Stream = DestinationStream & {
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
};

export type LogStreams = {
  immediate: Stream;
  batched: Stream & { lastLevel: number };
};

/** `dest`: stdout, or (for tests) a file. */
export function logStreams(dest: number | string = 1): LogStreams {
  // One write in flight at a time, the lines that come meanwhile appended to the next; flushed
  // synchronously on exit (pino registers that).
  const out = pino.destination({
    dest,
    sync: false,
    minLength: 0,
    maxLength: MAX_UNWRITTEN_BYTES,
  });
  let waiting = "";
  // Not unref'd: a line waiting keeps the process up for at most BATCH_MS, so it is written.
  let timer: NodeJS.Timeout | undefined;
  const writeWaiting = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (waiting === "") return;
    const lines = waiting;
    waiting = "";
    out.write(lines);
  };
  const flush = (callback?: (error?: Error) => void) => {
    writeWaiting();
    out.flush(callback);
  };
  const flushSync = () => {
    writeWaiting();
    out.flushSync();
  };
  // process.exit() while lines wait: pino's own exit handler flushes `out`, not these.
  process.once("exit", () => {
    if (waiting === "") return;
    try {
      flushSync();
    } catch {
      // stdout is gone: there is nowhere left to write.
    }
  });
  return {
    immediate: {
      write(line: string) {
        waiting += line;
        writeWaiting();
      },
      flush,
      flushSync,
    },
    batched: {
      // pino sets lastLevel before each write when the stream asks for it.
      [pino.symbols.needsMetadataGsym]: true,
      lastLevel: 0,
      write(line: string) {
        waiting += line;
        if (this.lastLevel >= WARN || waiting.length >= BATCH_BYTES) writeWaiting();
        else timer ??= setTimeout(writeWaiting, BATCH_MS);
      },
      flush,
      flushSync,
    } as LogStreams["batched"],
  };
}
