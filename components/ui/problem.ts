/**
 * What went wrong with a call, in words for the person at the screen: the problem details the
 * server sent (its sentence, its field errors), or, when no answer came at all, that the
 * service cannot be reached. Never a library's message ("Failed to fetch").
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

export const UNREACHABLE =
  "The service cannot be reached. Check your connection; this page tries again by itself, or use Retry.";

type ServerProblem = { detail: string; code?: string; status?: number; errors?: FieldProblem[] };

export function problemOf(error: unknown): ShownProblem {
  const data = (error as { data?: { problem?: ServerProblem; httpStatus?: number } } | undefined)
    ?.data;
  const problem = data?.problem;
  if (problem) {
    return {
      detail: problem.detail,
      code: problem.code,
      status: problem.status ?? data?.httpStatus,
      errors: problem.errors,
      unreachable: false,
    };
  }
  // No problem details: the request got no answer of ours (a network failure, a proxy's page).
  return { detail: UNREACHABLE, status: data?.httpStatus, unreachable: true };
}

/** The field errors of a problem, by field name. */
export function fieldErrorsOf(problem: ShownProblem): Record<string, string> {
  return Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.detail]));
}
