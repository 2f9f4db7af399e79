"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { createDeploymentInputSchema } from "@/server/deployments/schema";
import { DEPLOYMENT_STATUSES } from "@/server/deployments/statuses";
import { problemOf, trpc } from "./trpc";

type Status = (typeof DEPLOYMENT_STATUSES)[number];

export function DeploymentsTable() {
  const params = useSearchParams();
  const router = useRouter();
  const session = trpc.auth.session.useQuery();
  const status = (params.get("status") as Status | null) ?? undefined;
  const owner = params.get("owner") ?? undefined;
  const [ownerDraft, setOwnerDraft] = useState(owner ?? "");
  const list = trpc.deployments.list.useQuery({ status, user_address: owner, limit: 100 });
  const isAdmin = session.data?.role === "admin";

  const setFilter = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete("notice");
    router.replace(`/dashboard/deployments?${next}`);
  };

  return (
    <>
      <h1>Deployments</h1>
      {params.get("notice") === "admins-only" && (
        <p className="panel" role="status">
          Those pages are for admins. Your wallet sees its own deployments here.
        </p>
      )}
      <div className="panel">
        <div className="row">
          <div className="field" style={{ minWidth: 180 }}>
            <label htmlFor="status-filter">Status</label>
            <select
              id="status-filter"
              value={status ?? ""}
              onChange={(event) => setFilter("status", event.target.value || undefined)}
            >
              <option value="">All</option>
              {DEPLOYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          {isAdmin && (
            <form
              className="field row"
              style={{ flex: 1, alignItems: "end" }}
              onSubmit={(event: FormEvent) => {
                event.preventDefault();
                setFilter("owner", ownerDraft.trim() || undefined);
              }}
            >
              <div style={{ flex: 1 }}>
                <label htmlFor="owner-filter">Owner address</label>
                <input
                  id="owner-filter"
                  value={ownerDraft}
                  onChange={(event) => setOwnerDraft(event.target.value)}
                />
              </div>
              <button type="submit">Filter</button>
            </form>
          )}
        </div>
        {list.error ? (
          <p className="error">{problemOf(list.error).detail}</p>
        ) : list.isPending ? (
          <p aria-busy="true">Loading…</p>
        ) : list.data.deployments.length === 0 ? (
          <p className="muted">No deployments{status ? ` in ${status}` : ""}.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>ID</th>
                <th>Request</th>
                <th>Owner</th>
                <th>Status</th>
                <th>Worker</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.deployments.map((d) => (
                <tr key={d.id} data-testid={`deployment-row-${d.request_id}`}>
                  <td>
                    <Link href={`/dashboard/deployments/${d.id}`}>#{d.id}</Link>
                  </td>
                  <td>{d.request_id}</td>
                  <td>
                    <code>{short(d.user_address)}</code>
                  </td>
                  <td>
                    <span className={`badge ${d.Status}`}>{d.Status}</span>
                  </td>
                  <td>
                    {d.worker_address ? (
                      <code>{short(d.worker_address)}</code>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>{new Date(d.updated_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {isAdmin && <CreateDeployment />}
    </>
  );
}

export const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

const PROPOSAL_NUMBERS = [
  "init_cost",
  "maintenance_cost",
  "pay_period",
  "cost",
  "fit",
  "throughput",
  "sla",
  "error_rate",
  "rank",
] as const;

function CreateDeployment() {
  const utils = trpc.useUtils();
  const create = trpc.deployments.create.useMutation();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const input = {
      user_address: text("user_address"),
      ...(text("request_id") ? { request_id: text("request_id") } : {}),
      ...(text("proposal_id") ? { proposal_id: Number(text("proposal_id")) } : {}),
      proposal: {
        accept_currency: text("accept_currency"),
        ...Object.fromEntries(
          PROPOSAL_NUMBERS.map((name) => [
            name,
            text(name) === "" ? undefined : Number(text(name)),
          ]),
        ),
      },
    };
    const parsed = createDeploymentInputSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [i.path.join("."), i.message])));
      return;
    }
    setErrors({});
    try {
      const created = await create.mutateAsync(parsed.data);
      await utils.deployments.invalidate();
      setMessage(`Created deployment #${created.id} (${created.request_id}).`);
      form.reset();
    } catch (error) {
      const problem = problemOf(error);
      setErrors(Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.detail])));
      setMessage(problem.detail);
    }
  }

  const input = (name: string, label: string, path = name) => (
    <div className="field" key={name}>
      <label htmlFor={`new-${name}`}>{label}</label>
      <input id={`new-${name}`} name={name} aria-invalid={errors[path] ? true : undefined} />
      {errors[path] && <div className="field-error">{errors[path]}</div>}
    </div>
  );

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="create-heading">
      <h2 id="create-heading">New deployment</h2>
      <div className="form-grid">
        {input("user_address", "Owner address")}
        {input("request_id", "Request ID (optional)")}
        {input("proposal_id", "Proposal ID (optional)")}
        {input("accept_currency", "Currency", "proposal.accept_currency")}
        {PROPOSAL_NUMBERS.map((name) => input(name, name.replace("_", " "), `proposal.${name}`))}
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create deployment
        </button>
        {message && <span role="status">{message}</span>}
      </div>
    </form>
  );
}
