/**
 * `read()` again every `everyMs` until `done` holds of what it gave or `ms` have passed: a state
 * another process changes (a cancel seen by the instance doing the work), waited for a while.
 */
export async function readUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
