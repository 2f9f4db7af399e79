import type { ReactNode } from "react";
import styles from "./page-header.module.css";

/** A page's heading, with what identifies the thing shown and the page's main actions. */
export function PageHeader({
  title,
  detail,
  actions,
}: {
  title: ReactNode;
  detail?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <header className={styles.header}>
      <div className={styles.title}>
        <h1>{title}</h1>
        {detail && <div className={styles.detail}>{detail}</div>}
      </div>
      {actions && <div className={styles.actions}>{actions}</div>}
    </header>
  );
}
