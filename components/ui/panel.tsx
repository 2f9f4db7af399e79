import { type ComponentProps, createElement, type ReactNode, type Ref, useId } from "react";
import { cx } from "./class-names";
import styles from "./panel.module.css";

/** The element a panel is: a section of a page (named by its title), a form, a fieldset, a box. */
export type PanelElement = "section" | "form" | "fieldset" | "div";

/**
 * A bordered box of a page. With a `title` it starts with that heading (which names the
 * section for screen readers) and the panel's `actions` beside it.
 */
export function Panel({
  as: Element = "section",
  title,
  actions,
  className,
  children,
  ...props
}: Omit<ComponentProps<"form">, "title" | "ref"> & {
  ref?: Ref<HTMLElement>;
  as?: PanelElement;
  title?: ReactNode;
  actions?: ReactNode;
}) {
  const headingId = useId();
  return createElement(
    Element,
    {
      className: cx(styles.panel, className),
      "aria-labelledby": title ? headingId : undefined,
      ...props,
    },
    title && (
      <div className={styles.header}>
        <h2 id={headingId}>{title}</h2>
        {actions}
      </div>
    ),
    children,
  );
}
