"use client";

import { useEffect, useRef, useState } from "react";

/**
 * After a submit that found errors: the focus goes to the first field marked invalid, in the
 * form's order, once the marks are rendered (rather than staying on the submit button, far from
 * what to correct). `form` goes on the form; call `focusFirstInvalid` where errors are set.
 */
export function useFocusFirstInvalid<T extends HTMLElement = HTMLFormElement>() {
  const form = useRef<T>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt === 0) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [attempt]);
  return { form, focusFirstInvalid: () => setAttempt((n) => n + 1) };
}
