"use client";

import { useEffect, useState } from "react";
import { useAccount } from "wagmi";
import type { z } from "zod";
import type { deploymentSchema } from "@/server/deployments/schema";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Field } from "./ui/field";
import { Input } from "./ui/input";
import { readJsonObject } from "./ui/json-text";
import { type Outcome, OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { Select } from "./ui/select";
import { statusLabel } from "./ui/status-badge";
import { Textarea } from "./ui/textarea";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";
import { ChainCheck, useChainAccepted } from "./wallet/chain-check";
import { ConnectWallet } from "./wallet/connect-wallet";
import { useSiweSigner } from "./wallet/use-siwe";
import { signingFailure } from "./wallet/wallet-errors";

type Deployment = z.output<typeof deploymentSchema>;

/**
 * Changes the status by signing the SIWE message with the connected wallet, as a worker does.
 * It offers only the changes the service would accept from that wallet, and asks for a Privy
 * identity token when the service requires one (it never sends an empty one).
 */
export function ChangeStatus({
  deployment,
  chainIds,
}: {
  deployment: Deployment;
  chainIds: number[];
}) {
  const { isConnected, address } = useAccount();
  return (
    <Panel title="Change status">
      {!isConnected || !address ? (
        <>
          <p className="muted">Connect the wallet that signs the change.</p>
          <ConnectWallet />
        </>
      ) : (
        <SignChange deployment={deployment} signer={address} chainIds={chainIds} />
      )}
    </Panel>
  );
}

function SignChange({
  deployment,
  signer,
  chainIds,
}: {
  deployment: Deployment;
  signer: `0x${string}`;
  chainIds: number[];
}) {
  const utils = trpc.useUtils();
  const sign = useSiweSigner();
  const chainAccepted = useChainAccepted(chainIds);
  const options = trpc.deployments.changeOptions.useQuery({ id: deployment.id, signer });
  const { refetch } = options;
  // A change signed elsewhere (a worker, another tab) changes what may come next.
  // biome-ignore lint/correctness/useExhaustiveDependencies: asks again when the deployment changes.
  useEffect(() => {
    refetch();
  }, [deployment.updated_at, refetch]);
  const update = trpc.deployments.updateStatus.useMutation();
  const [next, setNext] = useState("");
  const [details, setDetails] = useState("");
  const [privyToken, setPrivyToken] = useState("");
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  const [detailsError, setDetailsError] = useState<string>();
  const { form: fields, focusFirstInvalid } = useFocusFirstInvalid<HTMLDivElement>();

  async function submit() {
    setOutcome(undefined);
    const read = readJsonObject(details);
    if (!read.ok) {
      // Said beside the field, before the wallet is asked to sign anything.
      setDetailsError(`The details ${read.problem}`);
      setOutcome({ ok: false, text: "Not changed: correct the details." });
      focusFirstInvalid();
      return;
    }
    setDetailsError(undefined);
    const deploymentDetails = read.value;
    setBusy(true);
    try {
      const statement = JSON.stringify({
        request_id: deployment.request_id,
        status: next,
        ...(deploymentDetails ? { deployment_details: deploymentDetails } : {}),
      });
      const signed = await sign(statement, "/v1/deployments/worker/status");
      await update.mutateAsync({
        user_address: signed.address,
        signature: signed.signature,
        siwe_msg: signed.message,
        ...(privyToken.trim() ? { privy_token: privyToken.trim() } : {}),
      });
      setOutcome({ ok: true, text: `Moved to ${statusLabel(next)}.` });
      setNext("");
      setDetails("");
      await utils.deployments.invalidate();
    } catch (error) {
      setOutcome({ ok: false, text: `Not changed: ${signingFailure(error)}` });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <p className="muted">
        Signing as <code>{signer}</code>
      </p>
      <ChainCheck accepted={chainIds} />
      <QueryState query={options} what="the changes you may make">
        {(allowed) =>
          allowed.statuses.length === 0 ? (
            <p className="muted" data-testid="no-change">
              {allowed.reason}
            </p>
          ) : (
            <>
              <div className="form-grid" ref={fields}>
                <Field name="next-status" label="New status">
                  {(control) => (
                    <Select
                      {...control}
                      value={next}
                      onChange={(event) => setNext(event.target.value)}
                    >
                      <option value="">Choose…</option>
                      {allowed.statuses.map((option) => (
                        <option key={option} value={option}>
                          {statusLabel(option)}
                        </option>
                      ))}
                    </Select>
                  )}
                </Field>
                <Field
                  name="next-details"
                  label="Deployment details (JSON, optional)"
                  error={detailsError}
                >
                  {(control) => (
                    <Input
                      {...control}
                      value={details}
                      onChange={(event) => {
                        setDetails(event.target.value);
                        setDetailsError(undefined);
                      }}
                      placeholder='{"endpoint":"https://…"}'
                    />
                  )}
                </Field>
              </div>
              {allowed.privy_token === "required" && (
                <Field
                  name="privy-token"
                  label="Privy identity token"
                  hint="This service accepts a status change only with a Privy identity token that lists this wallet (PRIVY_REQUIRED). This dashboard cannot sign you in to Privy: paste the identity token of your Privy session here."
                >
                  {(control) => (
                    <Textarea
                      {...control}
                      value={privyToken}
                      onChange={(event) => setPrivyToken(event.target.value)}
                    />
                  )}
                </Field>
              )}
              <div className="row">
                <Button
                  variant="primary"
                  disabled={
                    !next ||
                    busy ||
                    !chainAccepted ||
                    (allowed.privy_token === "required" && !privyToken.trim())
                  }
                  onClick={submit}
                >
                  {busy ? "Waiting for the signature…" : "Sign and apply"}
                </Button>
              </div>
            </>
          )
        }
      </QueryState>
      <p>
        <OutcomeMessage outcome={outcome} />
      </p>
    </>
  );
}
