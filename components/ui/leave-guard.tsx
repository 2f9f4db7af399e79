"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Button } from "./button";
import styles from "./confirm-dialog.module.css";

/**
 * Asks before leaving a page that would lose something (unsaved edits, a reply on its way),
 * while `active`: a link followed within the dashboard opens a dialog (Stay, or Leave), and a
 * reload or a closed tab gets the browser's own question. Next.js cannot hold a navigation its
 * links start, so a click on a link is caught first, as it reaches the document, before the
 * link's own handler sees it. (Back and Forward cannot be held by a page.)
 */
export function LeaveGuard({
  active,
  title,
  children,
  onLeave,
}: {
  active: boolean;
  title: string;
  /** What leaving loses, in a sentence or two. */
  children: ReactNode;
  /** Called as the user chooses to leave, before the page changes. */
  onLeave?: () => void;
}) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [target, setTarget] = useState<string>();
  const leave = useRef(onLeave);
  leave.current = onLeave;

  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when a value is set.
      event.returnValue = "";
    };
    const onClick = (event: MouseEvent) => {
      const href = leavingTo(event);
      if (href === undefined) return;
      event.preventDefault();
      // No other handler (the link's own, another guard) acts on this click.
      event.stopImmediatePropagation();
      setTarget(href);
      dialog.current?.showModal();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [active]);

  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <p>{children}</p>
      <div className="row end">
        <Button variant="primary" onClick={() => dialog.current?.close()}>
          Stay
        </Button>
        <Button
          variant="danger"
          onClick={() => {
            dialog.current?.close();
            leave.current?.();
            if (target) router.push(target);
          }}
        >
          Leave
        </Button>
      </div>
    </dialog>
  );
}

/**
 * Where a click leads, when it follows a link to another page of this site in this tab; a new
 * tab or window, a download, a fragment of this page or another site (whose loading the
 * browser's own question covers) are none of the guard's business.
 */
function leavingTo(event: MouseEvent): string | undefined {
  if (event.defaultPrevented || event.button !== 0) return undefined;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return undefined;
  const link = (event.target as Element | null)?.closest?.("a[href]");
  if (!(link instanceof HTMLAnchorElement)) return undefined;
  if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return undefined;
  const url = new URL(link.href, window.location.href);
  const here = window.location;
  if (url.origin !== here.origin) return undefined;
  if (url.pathname === here.pathname && url.search === here.search) return undefined;
  return `${url.pathname}${url.search}${url.hash}`;
}
