import { Cron } from "croner";
import { z } from "zod";

// Cron expression and time zone as clients give them, parsed by croner, never by hand.
// Browser-safe: the dashboard's form checks them as the API does.

export const CRON_MAX_LENGTH = 200;

/** What is wrong with a cron expression, or undefined when croner takes it and it ever fires. */
export function cronProblem(expression: string): string | undefined {
  let cron: Cron;
  try {
    cron = new Cron(expression, { mode: "5-part", timezone: "UTC" });
  } catch (error) {
    const reason = (error as Error).message.replace(/^CronPattern:\s*/, "");
    return `is not a five-field cron expression (minute hour day-of-month month day-of-week, e.g. '0 9 * * 1-5'): ${reason}`;
  }
  if (cron.nextRun() === null) return "never comes: no date matches it (such as 30 February)";
  return undefined;
}

/** The canonical name of an IANA time zone (`europe/berlin` is `Europe/Berlin`), if it is one. */
export function canonicalTimezone(name: string): string | undefined {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // Intl also takes a UTC offset (+02:00), which is no zone: it has no daylight-saving rules.
  return /^[+-]/.test(canonical) ? undefined : canonical;
}

export const autonomousCronSchema = z
  .string({ error: "must be a five-field cron expression, or null" })
  .trim()
  .max(CRON_MAX_LENGTH, `must be at most ${CRON_MAX_LENGTH} characters`)
  .superRefine((expression, ctx) => {
    const problem = cronProblem(expression);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .nullable()
  .meta({
    description:
      "A five-field cron expression (minute hour day-of-month month day-of-week, croner's syntax) read in autonomous_timezone: when set, it decides the autonomous runs and autonomous_minutes is kept but not used; null = every autonomous_minutes.",
    examples: ["0 9 * * 1-5"],
  });

export const autonomousTimezoneSchema = z
  .string({ error: "must be an IANA time zone name such as Europe/Berlin" })
  .trim()
  .max(100, "must be at most 100 characters")
  .transform((name, ctx) => {
    const canonical = canonicalTimezone(name);
    if (canonical === undefined) {
      ctx.addIssue({
        code: "custom",
        message: `is not an IANA time zone name ('${name.slice(0, 40)}'); use one such as UTC, Europe/Berlin or America/New_York`,
      });
      return z.NEVER;
    }
    return canonical;
  })
  .meta({
    description:
      "The IANA time zone the cron expression is read in (default UTC); stored under its canonical name.",
    examples: ["Europe/Berlin"],
  });
