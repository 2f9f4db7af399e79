import type { ReactNode } from "react";

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
    <header className="page-header">
      <div className="page-title">
        <h1>{title}</h1>
        {detail && <div className="page-detail">{detail}</div>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}
