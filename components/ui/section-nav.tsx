"use client";

import type { ReactNode } from "react";
import styles from "./section-nav.module.css";

export type PageSection = { id: string; label: string };

/**
 * Links to the sections of a long page (an agent's is many screens tall), under its header.
 * Following one moves to the section and puts the focus on its heading, so that the keyboard
 * goes on from there rather than from the link. On wide screens the links stay at the top of
 * the window while the page scrolls; on phones they wrap, above the first section.
 */
export function SectionNav({ sections }: { sections: PageSection[] }) {
  const focusHeading = (id: string) => {
    const heading = document.getElementById(id)?.querySelector<HTMLElement>("h2");
    if (!heading) return;
    // After the browser's own move to the fragment, which this leaves as it is.
    requestAnimationFrame(() => {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    });
  };
  return (
    <nav aria-label="Sections of this page" className={styles.nav}>
      <ul>
        {sections.map(({ id, label }) => (
          <li key={id}>
            <a href={`#${id}`} onClick={() => focusHeading(id)}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A section a SectionNav links to: its first heading takes the focus when it is followed. */
export function PageSectionTarget({ id, children }: { id: string; children: ReactNode }) {
  return (
    <div id={id} className={styles.target}>
      {children}
    </div>
  );
}
