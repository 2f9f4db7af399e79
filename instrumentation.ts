/**
 * Runs once when the server starts: check the configuration, make or find the admin API key,
 * open and migrate the database, so that a wrong setting stops the start with a clear message
 * instead of failing the first request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startUp } = await import("@/server/frame/start-up");
  await startUp();
}
