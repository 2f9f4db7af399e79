"use client";

import { useEffect, useRef, useState } from "react";

/** How long typing pauses before what was typed is written to the URL. */
const PAUSE_MS = 250;

/**
 * A text box bound to a URL parameter that follows typing: `write` gets the trimmed text (or
 * undefined for none) a quarter of a second after the last key, and a `value` changed from
 * outside (Back, a link) replaces the draft, but not an echo of what was just written.
 * Returns the draft and its setter, for the box's value and onChange.
 */
export function useTypedParam(
  value: string,
  write: (typed: string | undefined) => void,
): [string, (draft: string) => void] {
  const [draft, setDraft] = useState(value);
  const written = useRef(value);
  const latestWrite = useRef(write);
  latestWrite.current = write;
  useEffect(() => {
    if (value !== written.current) {
      written.current = value;
      setDraft(value);
    }
  }, [value]);
  useEffect(() => {
    const typed = draft.trim();
    if (typed === written.current) return;
    const timer = setTimeout(() => {
      written.current = typed;
      latestWrite.current(typed || undefined);
    }, PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  return [draft, setDraft];
}
