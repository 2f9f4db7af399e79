import type { ReactNode } from "react";

/** What a form control inside a Field gets: its id, and the links to its hint and error. */
export type ControlProps = {
  id: string;
  name: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
};

/**
 * A labelled form control with an optional hint and its error beside it. The control is
 * rendered by `children`, which gets the props that tie it to the label, hint and error.
 */
export function Field({
  name,
  label,
  hint,
  error,
  children,
}: {
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = name;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined]
    .filter(Boolean)
    .join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        name,
        ...(error ? { "aria-invalid": true } : {}),
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
      })}
      {hint && (
        <div className="hint" id={hintId}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={errorId}>
          {error}
        </div>
      )}
    </div>
  );
}
