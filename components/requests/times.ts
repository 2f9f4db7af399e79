/**
 * The request log's time filters: instants in the URL (ISO 8601, UTC), minutes in the user's
 * time zone in the form (`datetime-local`). Pure, so that a page that shows them stays so.
 */

/** An instant from the URL, or undefined for anything that is not one. */
export function instantParam(value: string | null): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** `2026-11-24T10:00` in the browser's time zone, as a datetime-local input shows it. */
export function localInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** What a datetime-local input holds, as an instant; undefined when empty or incomplete. */
export function instantOf(local: string): string | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}
