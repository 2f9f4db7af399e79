import cronstrue from "cronstrue";

/** A cron schedule in words for the dashboard (cronstrue); one it cannot read is shown as it is. */
export function describeCron(expression: string, timezone: string): string {
  try {
    return `${cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false })}, ${timezone}`;
  } catch {
    return `${expression}, ${timezone}`;
  }
}
