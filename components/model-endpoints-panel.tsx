"use client";

import { useEffect, useRef, useState } from "react";
import { MAX_MODEL_ENDPOINTS, type ModelEndpoint } from "@/server/model-endpoints/schema";
import { asEndpointInput, ModelEndpointForm } from "./model-endpoint-form";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { type Outcome, OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { Table, Td, Th } from "./ui/table";
import { useRole } from "./use-role";

/**
 * An agent's model endpoints, in the order they are tried: added, edited, moved up and removed
 * here through agents.upsert (so with the API's validation and key handling). With none, the
 * service's configured provider answers. A viewer sees the list only.
 */
export function ModelEndpointsPanel({
  aid,
  endpoints,
}: {
  aid: string;
  endpoints: ModelEndpoint[];
}) {
  const utils = trpc.useUtils();
  const save = trpc.agents.upsert.useMutation();
  const { canOperate } = useRole();
  /** The endpoint being edited: its index, "new", or none. */
  const [editing, setEditing] = useState<number | "new">();
  const [outcome, setOutcome] = useState<Outcome>();
  // When the form closes, the focus goes back to what opened it, not to the page's body.
  const panel = useRef<HTMLElement>(null);
  const opener = useRef<string>(undefined);
  useEffect(() => {
    if (editing !== undefined || opener.current === undefined) return;
    const buttons = [...(panel.current?.querySelectorAll("button") ?? [])];
    (
      buttons.find((button) => button.textContent === opener.current) ??
      buttons.find((button) => button.textContent === "Add model endpoint")
    )?.focus();
    opener.current = undefined;
  }, [editing]);
  const open = (which: number | "new", label: string) => {
    setOutcome(undefined);
    opener.current = label;
    setEditing(which);
  };

  async function saveList(list: ModelEndpoint[], text: string) {
    await save.mutateAsync({ aid, model_endpoints: list.map(asEndpointInput) });
    await utils.agents.get.invalidate({ aid });
    setOutcome({ ok: true, text });
  }
  const moveUp = (index: number) => {
    const list = [...endpoints];
    const [moved] = list.splice(index, 1);
    if (!moved) return;
    list.splice(index - 1, 0, moved);
    return saveList(list, `${moved.name} is now tried before ${list[index]?.name}.`);
  };

  return (
    <Panel
      ref={panel}
      title="Model endpoints"
      actions={
        canOperate &&
        editing === undefined &&
        endpoints.length < MAX_MODEL_ENDPOINTS && (
          <Button size="small" onClick={() => open("new", "Add model endpoint")}>
            Add model endpoint
          </Button>
        )
      }
    >
      <p className="muted">
        {endpoints.length === 0
          ? "None: the service's configured provider answers. Add endpoints to choose this agent's models, tried in order: the next when one fails before its first token."
          : "Tried in order: on a connection error, a timeout, 429 or 5xx before the first token, the next one is."}
      </p>
      {editing !== undefined && (
        <ModelEndpointForm
          aid={aid}
          endpoints={endpoints}
          index={editing === "new" ? undefined : editing}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) setOutcome({ ok: true, text: `Saved ${saved}.` });
          }}
        />
      )}
      <OutcomeMessage outcome={outcome} />
      {endpoints.length > 0 && (
        <Table layout="cards">
          <thead>
            <tr>
              <Th>Endpoint</Th>
              <Th>Model</Th>
              <Th>Key</Th>
              {canOperate && <Th>Actions</Th>}
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint, index) => (
              <tr key={endpoint.name} data-testid="model-endpoint">
                <Td label="Endpoint">
                  <strong>
                    {index + 1}. {endpoint.name}
                  </strong>{" "}
                  <code className="muted">{endpoint.base_url}</code>
                </Td>
                <Td label="Model">
                  <code>{endpoint.model}</code>
                </Td>
                <Td label="Key">
                  {endpoint.api_key
                    ? `stored${endpoint.api_key.hint ? ` (${endpoint.api_key.hint})` : ""}`
                    : endpoint.api_key_env
                      ? `from ${endpoint.api_key_env}`
                      : "none"}
                </Td>
                {canOperate && (
                  <Td label="Actions">
                    <div className="row">
                      <Button
                        size="small"
                        disabled={editing !== undefined}
                        onClick={() => open(index, `Edit ${endpoint.name}`)}
                      >
                        Edit {endpoint.name}
                      </Button>
                      {index > 0 && (
                        <Button
                          size="small"
                          disabled={editing !== undefined || save.isPending}
                          onClick={() => moveUp(index)}
                        >
                          Try {endpoint.name} earlier
                        </Button>
                      )}
                      <ConfirmDialog
                        trigger={`Remove ${endpoint.name}`}
                        title={`Remove the model endpoint ${endpoint.name}?`}
                        confirmLabel="Remove endpoint"
                        disabled={editing !== undefined}
                        onConfirm={() =>
                          saveList(
                            endpoints.filter((_, i) => i !== index),
                            `Removed ${endpoint.name}.`,
                          )
                        }
                      >
                        <p>
                          The agent no longer calls it; its stored key is deleted. Replies it wrote
                          stay in the threads, usage and the request log.
                        </p>
                      </ConfirmDialog>
                    </div>
                  </Td>
                )}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Panel>
  );
}
