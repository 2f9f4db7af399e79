import type { ComponentProps, ReactNode } from "react";
import { Checkbox } from "./checkbox";
import { cx } from "./class-names";
import styles from "./field.module.css";

/** What a form control inside a Field gets: its id, and the links to its hint and error. */
export type ControlProps = {
  id: string;
  name: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
};

/** The props that tie a control to its hint and error, and the ids of those. */
function describe(id: string, hint: ReactNode, error: ReactNode) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined]
    .filter(Boolean)
    .join(" ");
  return {
    hintId,
    errorId,
    control: {
      ...(error ? { "aria-invalid": true as const } : {}),
      ...(describedBy ? { "aria-describedby": describedBy } : {}),
    },
  };
}

function HintAndError({
  hint,
  error,
  hintId,
  errorId,
}: {
  hint: ReactNode;
  error: ReactNode;
  hintId: string;
  errorId: string;
}) {
  return (
    <>
      {hint && (
        <div className="hint" id={hintId}>
          {hint}
        </div>
      )}
      {error && (
        <div className={styles.error} id={errorId}>
          {error}
        </div>
      )}
    </>
  );
}

/**
 * A labelled form control (an Input, Select or Textarea) with an optional hint and its error
 * beside it. The control is rendered by `children`, which gets the props that tie it to the
 * label, hint and error; the error marks it invalid (`aria-invalid`), which its look follows.
 */
export function Field({
  name,
  label,
  hint,
  error,
  className,
  children,
}: {
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = name;
  const { hintId, errorId, control } = describe(id, hint, error);
  return (
    <div className={cx(styles.field, className)}>
      <label htmlFor={id}>{label}</label>
      {children({ id, name, ...control })}
      <HintAndError hint={hint} error={error} hintId={hintId} errorId={errorId} />
    </div>
  );
}

/** A Checkbox as a field of a form, with an optional hint and its error under it. */
export function CheckboxField({
  name,
  label,
  hint,
  error,
  ...props
}: Omit<ComponentProps<"input">, "type"> & {
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
}) {
  const { hintId, errorId, control } = describe(name, hint, error);
  return (
    <div className={styles.field}>
      <Checkbox id={name} name={name} label={label} {...control} {...props} />
      <HintAndError hint={hint} error={error} hintId={hintId} errorId={errorId} />
    </div>
  );
}

/**
 * The room a field takes, for what stands in a row of fields without being one (a row's submit
 * button), so that it lines up with them.
 */
export function FieldSpace({ children }: { children: ReactNode }) {
  return <div className={styles.field}>{children}</div>;
}
