"use client";

import Link from "next/link";
import type { AuditEntry } from "@/server/audit/schema";
import { Copyable } from "../ui/copy-button";
import { RelativeTime } from "../ui/relative-time";
import { Table, Td, Th } from "../ui/table";
import styles from "./audit.module.css";
import { changesOf, compactJson, targetHref } from "./changes";

/** An entry as the client has it (JSON leaves out `before` and `after` when they are unknown). */
type Entry = Omit<AuditEntry, "before" | "after"> & { before?: unknown; after?: unknown };

/** One change: what was done to what, by whom and when; its fields before and after, folded. */
export function AuditEntryItem({ entry }: { entry: Entry }) {
  const href = targetHref(entry.target);
  return (
    <li className={styles.entry} data-testid="audit-entry">
      <div className={styles.head}>
        <code className={styles.action} data-testid="audit-action">
          {entry.action}
        </code>
        {href ? (
          <Link href={href} className={styles.target}>
            {entry.target}
          </Link>
        ) : (
          <span className={styles.target}>{entry.target}</span>
        )}
        <RelativeTime value={entry.at} />
      </div>
      <div className={`${styles.meta} muted small-text`}>
        <span>
          by <span className={styles.actor}>{entry.actor}</span> via {entry.actor_via}
        </span>
        {entry.request_id && (
          <span className={styles.request}>
            request <Copyable value={entry.request_id} what="request ID" />
          </span>
        )}
      </div>
      <details className={styles.changes}>
        <summary>Changes</summary>
        <ChangesShown before={entry.before} after={entry.after} />
      </details>
    </li>
  );
}

function ChangesShown({ before, after }: { before: unknown; after: unknown }) {
  const changes = changesOf(before, after);
  if (changes.kind === "none")
    return <p className="muted">Nothing recorded but that it happened.</p>;
  if (changes.kind !== "fields")
    return (
      <>
        <p className="muted small-text">{changes.kind === "created" ? "After:" : "Before:"}</p>
        <pre className={styles.json}>{JSON.stringify(changes.value, null, 2)}</pre>
      </>
    );
  if (changes.fields.length === 0) return <p className="muted">No field changed.</p>;
  return (
    <Table layout="cards" className={styles.diff}>
      <caption className="sr-only">Fields changed</caption>
      <thead>
        <tr>
          <Th>Field</Th>
          <Th>Before</Th>
          <Th>After</Th>
        </tr>
      </thead>
      <tbody>
        {changes.fields.map((change) => (
          <tr key={change.field} data-testid="audit-field">
            <Td label="Field">
              <code>{change.field || "value"}</code>
            </Td>
            <Td label="Before">
              <code className={styles.value}>{compactJson(change.before)}</code>
            </Td>
            <Td label="After">
              <code className={styles.value}>{compactJson(change.after)}</code>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
