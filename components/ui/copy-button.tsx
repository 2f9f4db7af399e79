"use client";

import { useEffect, useState } from "react";
import { Button } from "./button";
import styles from "./copy-button.module.css";

/**
 * Copies a value (an id, an address, a key) to the clipboard and says so. Where the browser
 * gives no clipboard (a page not served over HTTPS or from localhost), it says to copy by hand.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2500);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  return (
    <span className={styles.copy}>
      <Button size="small" onClick={copy} aria-label={`Copy ${what}`}>
        {state === "copied" ? "Copied" : "Copy"}
      </Button>
      <span role="status" className={state === "failed" ? styles.failed : "sr-only"}>
        {state === "copied"
          ? `${what} copied`
          : state === "failed"
            ? "This browser does not allow copying here: select the text and copy it."
            : ""}
      </span>
    </span>
  );
}

/** A value in monospace with its copy button; long values wrap instead of widening the page. */
export function Copyable({ value, what, shown }: { value: string; what: string; shown?: string }) {
  return (
    <span className={styles.copyable}>
      <code title={shown && shown !== value ? value : undefined}>{shown ?? value}</code>
      <CopyButton value={value} what={what} />
    </span>
  );
}
