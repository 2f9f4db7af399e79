import { localInstants } from "./dates";
import { formWords } from "./format";

/**
 * What went wrong with a call, in words for the person at the screen: the problem details the
 * server sent (its sentence, its field errors), or, when no answer came at all, that the
 * service cannot be reached. Never a library's message ("Failed to fetch"), nor an API field
 * name or an ISO instant: the sentence names fields as the pages do, and times in the reader's.
 */

export type FieldProblem = { field: string; detail: string };

export type ShownProblem = {
  detail: string;
  code?: string;
  status?: number;
  errors?: FieldProblem[];
  /** No answer came (network down, server stopped): trying again later may work. */
  unreachable: boolean;
};

/**
 * No answer came. Only that: what the page does about it (tries again by itself, offers Retry,
 * keeps what was typed) is said where it is true, by the notice or form that shows it.
 */
export const UNREACHABLE = "The service cannot be reached: check your connection.";

/**
 * A problem found in the browser before anything was sent (a field that cannot be read): its
 * message is written for the reader, and is shown as it is, never as a network failure.
 */
export class FormProblem extends Error {
  override name = "FormProblem";
}

type ServerProblem = { detail: string; code?: string; status?: number; errors?: FieldProblem[] };

export function problemOf(error: unknown, now = Date.now()): ShownProblem {
  if (error instanceof FormProblem) return { detail: error.message, unreachable: false };
  const data = (error as { data?: { problem?: ServerProblem; httpStatus?: number } } | undefined)
    ?.data;
  const problem = data?.problem;
  if (problem) {
    return {
      detail: serverWords(problem.detail, now),
      code: problem.code,
      status: problem.status ?? data?.httpStatus,
      errors: problem.errors?.map((error) => ({ ...error, detail: formWords(error.detail) })),
      unreachable: false,
    };
  }
  // No problem details: the request got no answer of ours (a network failure, a proxy's page).
  return { detail: UNREACHABLE, status: data?.httpStatus, unreachable: true };
}

/** A sentence the service stored for API clients (why an endpoint is disabled), in the page's words. */
export function serverWords(sentence: string, now = Date.now()): string {
  return localInstants(formWords(sentence), now);
}

/** The field errors of a problem, by field name. */
export function fieldErrorsOf(problem: ShownProblem): Record<string, string> {
  return Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.detail]));
}
