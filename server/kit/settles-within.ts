/**
 * Whether `work` settles within `ms`: true once it has, false when the time runs out first.
 * The timer is cleared either way, so a stop that finished early does not keep the process up.
 * For the shutdown grace of the workers that claim from the database (runs, webhook deliveries).
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
