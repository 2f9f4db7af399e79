"use client";

import { type RefObject, useEffect, useRef, useState } from "react";

/**
 * After a submit that found errors: the focus goes to the first field marked invalid, in the
 * form's order, once the marks are rendered (rather than staying on the submit button, far from
 * what to correct, or falling to the page's body when that button is gone). When no field is
 * marked (the error is about the whole form), it goes to the form's alert that says so. `form`
 * goes on the form (or the box that holds its fields); call `focusFirstInvalid` where errors
 * are set.
 */
export function useFocusFirstInvalid<T extends HTMLElement = HTMLFormElement>() {
  const form = useRef<T>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt === 0) return;
    const root = form.current;
    if (!root) return;
    const invalid = root.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (invalid) {
      invalid.focus();
      return;
    }
    const alert = root.querySelector<HTMLElement>('[role="alert"]');
    if (alert) {
      alert.tabIndex = -1;
      alert.focus();
    }
  }, [attempt]);
  return { form, focusFirstInvalid: () => setAttempt((n) => n + 1) };
}

/**
 * The focus on a form's first field when it opens (after "Add …" or "Edit", whose button may
 * be gone or disabled once the form shows, which would leave the focus on the page's body).
 */
export function useFocusOnOpen(box: RefObject<HTMLElement | null>) {
  useEffect(() => {
    box.current
      ?.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea, button")
      ?.focus();
  }, [box]);
}
