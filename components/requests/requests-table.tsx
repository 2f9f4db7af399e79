"use client";

import Link from "next/link";
import type { RequestRecord } from "@/server/request-log/schema";
import { Copyable } from "../ui/copy-button";
import { formatCost, formatNumber } from "../ui/format";
import { RelativeTime } from "../ui/relative-time";
import { StatusBadge, type Tone } from "../ui/status-badge";
import { Table, Td, Th } from "../ui/table";

/** How each way in is named in the table. */
const VIA_LABELS: Record<RequestRecord["via"], string> = {
  chat: "chat",
  completions: "chat completion",
  mcp: "MCP",
  responses: "response",
  a2a: "A2A",
};

/** 200 replied; a refusal (4xx) is the caller's to fix; a failure (5xx) the service's. */
function toneOf(status: number): Tone {
  if (status === 200) return "ok";
  if (status === 499) return "neutral";
  return status >= 500 ? "danger" : "warn";
}

/** The agent's page with the request's thread open in its conversations. */
export function threadHref(row: Pick<RequestRecord, "aid" | "chat_id" | "caller">): string {
  const query = new URLSearchParams({ thread: row.chat_id, caller: row.caller });
  return `/dashboard/agents/${encodeURIComponent(row.aid)}?${query}`;
}

/** One page of the request log, newest first; each row links to its agent and its thread. */
export function RequestsTable({ requests }: { requests: RequestRecord[] }) {
  return (
    <Table layout="cards">
      <caption className="sr-only">Chat requests, newest first</caption>
      <thead>
        <tr>
          <Th>Time</Th>
          <Th>Agent</Th>
          <Th>Caller</Th>
          <Th>Status</Th>
          <Th numeric>Latency</Th>
          <Th numeric>Tokens</Th>
          <Th numeric>Cost</Th>
          <Th>Thread</Th>
          <Th>Request ID</Th>
        </tr>
      </thead>
      <tbody>
        {requests.map((row) => (
          <tr key={row.id} data-testid="request-row">
            <Td label="Time">
              <RelativeTime value={row.started_at} />
              <div className="muted small-text">{VIA_LABELS[row.via]}</div>
            </Td>
            <Td label="Agent">
              <Link href={`/dashboard/agents/${encodeURIComponent(row.aid)}`}>{row.aid}</Link>
            </Td>
            <Td label="Caller">
              <span title={row.caller}>{row.caller_label}</span>
            </Td>
            <Td label="Status">
              <StatusBadge status={String(row.status)} tone={toneOf(row.status)} />
              {row.code && (
                <div className="muted small-text" data-testid="request-code">
                  {row.code.replaceAll("_", " ")}
                </div>
              )}
            </Td>
            <Td label="Latency" numeric>
              {formatNumber(row.latency_ms)} ms
            </Td>
            <Td label="Tokens" numeric>
              {row.input_tokens === null || row.output_tokens === null ? (
                <span className="muted">—</span>
              ) : (
                `${formatNumber(row.input_tokens)} in · ${formatNumber(row.output_tokens)} out`
              )}
            </Td>
            <Td label="Cost" numeric>
              {row.cost === null ? <span className="muted">—</span> : formatCost(row.cost)}
            </Td>
            <Td label="Thread">
              <Link
                href={threadHref(row)}
                aria-label={`Thread ${row.chat_id} of ${row.caller_label}`}
              >
                {row.chat_id}
              </Link>
            </Td>
            <Td label="Request ID">
              {row.request_id ? (
                <Copyable value={row.request_id} what="request ID" />
              ) : (
                <span className="muted">none</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
