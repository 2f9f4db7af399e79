// Retries of a model call the provider refused for now (408, 409, 429, 5xx, failed connections),
// with doubling backoff, honouring `retry-after-ms` or `retry-after` under a minute: the AI SDK's
// rules, so that operators see the behaviour they know.

const INITIAL_DELAY_MS = 2000;
const MAX_HONOURED_WAIT_MS = 60_000;

export class ProviderHttpError extends Error {
  override name = "ProviderHttpError";
  constructor(
    readonly status: number,
    /** What the provider asked us to wait, in ms, if it said. */
    readonly retryAfterMs: number | undefined,
    readonly attempts = 1,
  ) {
    super(`The model provider answered HTTP ${status}.`);
  }
}

/** The provider's answer could not be read (a malformed body, an error inside a stream). */
export class ProviderReplyError extends Error {
  override name = "ProviderReplyError";
}

// By name, not instanceof: Next.js's build may bundle this module into more than one chunk, and
// an error made by one copy's class is not an instance of the other's.
export const isProviderHttpError = (error: unknown): error is ProviderHttpError =>
  (error as Error | undefined)?.name === "ProviderHttpError";
export const isProviderReplyError = (error: unknown): error is ProviderReplyError =>
  (error as Error | undefined)?.name === "ProviderReplyError";

export async function withRetries<T>(
  attempt: () => Promise<T>,
  { maxRetries, signal }: { maxRetries: number; signal: AbortSignal },
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted || tried >= maxRetries || !isRetryable(error)) {
        if (isProviderHttpError(error) && tried > 0)
          throw new ProviderHttpError(error.status, error.retryAfterMs, tried + 1);
        throw error;
      }
      await sleep(retryDelay(error, INITIAL_DELAY_MS * 2 ** tried), signal);
    }
  }
}

/** Worth asking again, or another endpoint: 408, 409, 429, 5xx, a connection that failed. */
export function isRetryable(error: unknown): boolean {
  if (isProviderHttpError(error)) {
    const { status } = error;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  // A connection that failed before or while asking; not undici's timeouts or aborts.
  return /^(ECONN|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR_SOCKET)/.test(errorCode(error));
}

/** A failure of the connection to the provider (undici's codes), not our bugs or the database. */
export function isConnectionFailure(error: unknown): boolean {
  return /^(UND_ERR|ECONN|ENOTFOUND|EAI_AGAIN|EPIPE)/.test(errorCode(error));
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : "";
}

/** The wait before asking again: what the provider asked for, if under a minute, else the backoff. */
export function retryDelay(error: unknown, backoffMs: number): number {
  const asked = isProviderHttpError(error) ? error.retryAfterMs : undefined;
  if (asked !== undefined && asked >= 0 && (asked < MAX_HONOURED_WAIT_MS || asked < backoffMs))
    return asked;
  return backoffMs;
}

/** The wait a provider asked for, from `retry-after-ms` or `retry-after` (seconds or a date). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>) {
  const one = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = Number.parseFloat(one("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return ms;
  const after = one("retry-after");
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - Date.now();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
