"use client";

import Link from "next/link";
import { useState } from "react";
import { useAccount, useConnect } from "wagmi";
import { allowedNext } from "@/server/deployments/transitions";
import { short } from "./deployments-table";
import { problemOf, trpc } from "./trpc";
import { useSiweSigner } from "./wallet/use-siwe";
import { WalletProvider } from "./wallet/wallet-provider";

export function DeploymentPage({ id }: { id: number }) {
  return (
    <WalletProvider>
      <Deployment id={id} />
    </WalletProvider>
  );
}

function Deployment({ id }: { id: number }) {
  const deployment = trpc.deployments.get.useQuery({ id });
  if (deployment.isPending) return <p aria-busy="true">Loading…</p>;
  if (deployment.error) {
    return (
      <>
        <p className="error">{problemOf(deployment.error).detail}</p>
        <Link href="/dashboard/deployments">Back to deployments</Link>
      </>
    );
  }
  const d = deployment.data;
  return (
    <>
      <div className="row" style={{ marginBottom: "1rem" }}>
        <h1 style={{ margin: 0 }}>Deployment #{d.id}</h1>
        <span className={`badge ${d.Status}`} data-testid="deployment-status">
          {d.Status}
        </span>
      </div>
      <div className="grid">
        <section className="panel">
          <h2>Record</h2>
          <dl>
            <dt className="muted">Request</dt>
            <dd>{d.request_id}</dd>
            <dt className="muted">Owner</dt>
            <dd>
              <code>{d.user_address}</code>
            </dd>
            <dt className="muted">Worker</dt>
            <dd>{d.worker_address ? <code>{d.worker_address}</code> : "not picked up yet"}</dd>
            <dt className="muted">Worker name</dt>
            <dd>{d.worker_name ?? "—"}</dd>
            <dt className="muted">Proposal</dt>
            <dd>
              {d.proposal_id ?? "—"} {d.proposal_hash ? <code>{d.proposal_hash}</code> : null}
            </dd>
          </dl>
        </section>
        <section className="panel">
          <h2>Proposal</h2>
          <pre className="json">{JSON.stringify(d.proposal, null, 2)}</pre>
          <h2>Deployment details</h2>
          <pre className="json" data-testid="deployment-details">
            {JSON.stringify(d.deployment_details, null, 2)}
          </pre>
        </section>
      </div>
      <ChangeStatus requestId={d.request_id} status={d.Status} />
      <section className="panel" aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        {d.history.length === 0 ? (
          <p className="muted">Created {new Date(d.created_at).toLocaleString()}; no change yet.</p>
        ) : (
          <ol className="timeline">
            {d.history.map((h) => (
              <li key={h.id}>
                <strong>
                  {h.from_status} → {h.to_status}
                </strong>{" "}
                <span className="muted">{new Date(h.created_at).toLocaleString()}</span>
                <div className="muted">
                  signed by <code>{short(h.signer_address)}</code>
                  {h.deployment_details ? ` · ${JSON.stringify(h.deployment_details)}` : ""}
                </div>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

/** Changes the status by signing the SIWE message with the connected wallet, as a worker does. */
function ChangeStatus({
  requestId,
  status,
}: {
  requestId: string;
  status: Parameters<typeof allowedNext>[0];
}) {
  const utils = trpc.useUtils();
  const { isConnected, address } = useAccount();
  const { connectors, connect } = useConnect();
  const sign = useSiweSigner();
  const update = trpc.deployments.updateStatus.useMutation();
  const [next, setNext] = useState<string>("");
  const [details, setDetails] = useState("");
  const [message, setMessage] = useState<{ text: string; error: boolean }>();
  const options = allowedNext(status);

  async function submit() {
    setMessage(undefined);
    let deploymentDetails: Record<string, unknown> | undefined;
    try {
      deploymentDetails = details.trim() ? JSON.parse(details) : undefined;
    } catch {
      setMessage({ text: "Details must be a JSON object.", error: true });
      return;
    }
    try {
      const statement = JSON.stringify({
        request_id: requestId,
        status: next,
        ...(deploymentDetails ? { deployment_details: deploymentDetails } : {}),
      });
      const signed = await sign(statement, "/v1/deployments/worker/status");
      await update.mutateAsync({
        user_address: signed.address,
        signature: signed.signature,
        siwe_msg: signed.message,
        privy_token: "",
      });
      setMessage({ text: `Moved to ${next}.`, error: false });
      setNext("");
      setDetails("");
      await utils.deployments.invalidate();
    } catch (error) {
      setMessage({ text: problemOf(error).detail, error: true });
    }
  }

  return (
    <section className="panel" aria-labelledby="change-heading">
      <h2 id="change-heading">Change status</h2>
      {options.length === 0 ? (
        <p className="muted">{status} is final.</p>
      ) : !isConnected ? (
        <div className="row">
          <span className="muted">Connect the wallet that signs the change.</span>
          {connectors.slice(0, 1).map((connector) => (
            <button key={connector.uid} type="button" onClick={() => connect({ connector })}>
              Connect wallet
            </button>
          ))}
        </div>
      ) : (
        <>
          <p className="muted">
            Signing as <code>{address}</code>
          </p>
          <div className="form-grid">
            <div className="field">
              <label htmlFor="next-status">New status</label>
              <select
                id="next-status"
                value={next}
                onChange={(event) => setNext(event.target.value)}
              >
                <option value="">Choose…</option>
                {options.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="next-details">Deployment details (JSON, optional)</label>
              <input
                id="next-details"
                value={details}
                onChange={(event) => setDetails(event.target.value)}
                placeholder='{"endpoint":"https://…"}'
              />
            </div>
          </div>
          <button
            type="button"
            className="primary"
            disabled={!next || update.isPending}
            onClick={submit}
          >
            Sign and apply
          </button>
        </>
      )}
      {message && (
        <p className={message.error ? "error" : "muted"} role={message.error ? "alert" : "status"}>
          {message.text}
        </p>
      )}
    </section>
  );
}
