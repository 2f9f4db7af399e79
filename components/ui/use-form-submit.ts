"use client";

import { type FormEvent, useState } from "react";
import { fieldErrorsOf, problemOf, type ShownProblem } from "./problem";
import { useFocusFirstInvalid, useFocusOnOpen } from "./use-focus-first-invalid";

/**
 * A form that sends what it holds and shows the service's refusal: each field's error beside
 * it, the sentence under the form, the focus on the first field to correct. The form's first
 * field has the focus when it opens; `busy` while it is sent. `form` goes on the form and
 * `submit` is its onSubmit.
 */
export function useFormSubmit<Fields>({
  read,
  send,
  refused,
  fieldErrors = fieldErrorsOf,
}: {
  /** What is sent, read from the form's fields. */
  read: (data: FormData) => Fields;
  send: (fields: Fields) => Promise<unknown>;
  /** How the failure's sentence starts ("Not added"): the service's reason follows. */
  refused: string;
  /** The errors by the names of the form's fields, where they differ from the API's. */
  fieldErrors?: (problem: ShownProblem) => Record<string, string>;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const { form, focusFirstInvalid } = useFocusFirstInvalid();
  useFocusOnOpen(form);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = read(new FormData(event.currentTarget));
    setErrors({});
    setFailure(undefined);
    setBusy(true);
    try {
      await send(fields);
    } catch (error) {
      const problem = problemOf(error);
      setErrors(fieldErrors(problem));
      setFailure(`${refused}: ${problem.detail}`);
      focusFirstInvalid();
    } finally {
      setBusy(false);
    }
  }

  return { form, submit, errors, failure, busy };
}
