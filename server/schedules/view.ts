import cronstrue from "cronstrue";

/**
 * A cron schedule in words, for the dashboard: "At 09:00, Monday through Friday, Europe/Berlin".
 * cronstrue writes the words; an expression it cannot read is shown as it is.
 */
export function describeCron(expression: string, timezone: string): string {
  try {
    return `${cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false })}, ${timezone}`;
  } catch {
    return `${expression}, ${timezone}`;
  }
}
