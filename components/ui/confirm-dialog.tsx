"use client";

import { type ReactNode, useId, useRef, useState } from "react";
import { Button } from "./button";
import styles from "./confirm-dialog.module.css";
import { ErrorText } from "./notice";
import { problemOf } from "./problem";

/**
 * A button that asks before doing something that cannot be undone: a modal dialog (the
 * browser's own `<dialog>`, so focus stays inside and Escape cancels) saying what will happen,
 * with the action and a button that changes nothing (`dismissLabel`, "Cancel" unless the action
 * is itself a cancelling, where two "Cancel" buttons could be confused). A failure is shown in
 * the dialog, which stays open.
 */
export function ConfirmDialog({
  trigger,
  title,
  children,
  confirmLabel,
  dismissLabel = "Cancel",
  onOpen,
  onConfirm,
  danger = true,
  disabled = false,
  confirmDisabled = false,
}: {
  trigger: string;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog and changes nothing. */
  dismissLabel?: string;
  /** Called as the dialog opens: what it asks starts afresh each time. */
  onOpen?: () => void;
  onConfirm: () => Promise<unknown> | unknown;
  danger?: boolean;
  disabled?: boolean;
  /** The action cannot be taken as the dialog stands (nothing chosen in it, say). */
  confirmDisabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      dialog.current?.close();
    } catch (caught) {
      setError(problemOf(caught).detail);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Button
        variant={danger ? "danger" : "default"}
        disabled={disabled}
        onClick={() => {
          setError(undefined);
          onOpen?.();
          dialog.current?.showModal();
        }}
      >
        {trigger}
      </Button>
      <dialog ref={dialog} className={styles.dialog} aria-labelledby={titleId}>
        <h2 id={titleId}>{title}</h2>
        {children}
        {error && <ErrorText role="alert">{error}</ErrorText>}
        <div className="row end">
          <Button onClick={() => dialog.current?.close()} disabled={busy}>
            {dismissLabel}
          </Button>
          <Button
            variant={danger ? "danger-filled" : "primary"}
            onClick={confirm}
            disabled={busy || confirmDisabled}
          >
            {busy ? "Working…" : confirmLabel}
          </Button>
        </div>
      </dialog>
    </>
  );
}
