"use client";

import { useState } from "react";
import type { ModelEndpoint, ModelEndpointInput } from "@/server/model-endpoints/schema";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Field } from "./ui/field";
import { Input } from "./ui/input";
import { OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { Select } from "./ui/select";
import { useFormSubmit } from "./ui/use-form-submit";

/** How the endpoint's API key is given: kept, typed (stored encrypted), read from a variable, none. */
type KeyMode = "keep" | "value" | "env" | "none";

/** A shown endpoint sent back unchanged: its stored key kept, its variable named again. */
export function asEndpointInput(endpoint: ModelEndpoint): ModelEndpointInput {
  return {
    name: endpoint.name,
    base_url: endpoint.base_url,
    model: endpoint.model,
    api_key: endpoint.api_key ? { secret: true } : null,
    api_key_env: endpoint.api_key_env,
    timeout_ms: endpoint.timeout_ms,
  };
}

/**
 * Adds or edits one model endpoint of an agent, saved through agents.upsert with the API's
 * validation: a typed key is stored encrypted and never shown again; a stored one is kept unless
 * another is given. The other endpoints are sent back as they are, in their order.
 */
export function ModelEndpointForm({
  aid,
  endpoints,
  index,
  onDone,
}: {
  aid: string;
  endpoints: ModelEndpoint[];
  /** The endpoint edited; undefined adds one at the end. */
  index: number | undefined;
  onDone: (saved: string | undefined) => void;
}) {
  const editing = index === undefined ? undefined : endpoints[index];
  const utils = trpc.useUtils();
  const save = trpc.agents.upsert.useMutation();
  const [mode, setMode] = useState<KeyMode>(
    editing?.api_key ? "keep" : editing?.api_key_env ? "env" : "value",
  );
  const at = index ?? endpoints.length;
  const { form, submit, errors, failure } = useFormSubmit({
    read: (data): ModelEndpointInput => {
      const text = (name: string) => String(data.get(name) ?? "").trim();
      const key = text("endpoint_key");
      const timeout = text("endpoint_timeout");
      return {
        name: text("endpoint_name"),
        base_url: text("endpoint_url"),
        model: text("endpoint_model"),
        api_key: mode === "keep" ? { secret: true } : mode === "value" && key ? key : null,
        api_key_env: mode === "env" ? key : null,
        // Not a number stays as typed, for the API's own sentence about it.
        timeout_ms: timeout === "" ? null : (Number(timeout) as number),
      };
    },
    send: async (endpoint) => {
      const list = endpoints.map(asEndpointInput);
      list.splice(at, index === undefined ? 0 : 1, endpoint);
      await save.mutateAsync({ aid, model_endpoints: list });
      await utils.agents.get.invalidate({ aid });
      onDone(endpoint.name);
    },
    refused: "Not saved",
    // This endpoint's errors, by its own fields; the list's, by its name.
    fieldErrors: (problem) => {
      const own: Record<string, string> = {};
      const prefix = `model_endpoints.${at}.`;
      for (const { field, detail } of problem.errors ?? []) {
        if (field.startsWith(prefix)) own[field.slice(prefix.length)] = detail;
        else if (field === "model_endpoints") own.name = detail;
      }
      return own;
    },
  });

  return (
    <Panel
      as="form"
      ref={form}
      onSubmit={submit}
      noValidate
      aria-label={editing ? `Edit model endpoint ${editing.name}` : "Add a model endpoint"}
    >
      <div className="form-grid">
        <Field
          name="endpoint_name"
          label="Endpoint name"
          hint="1 to 32 letters, digits, _ or -: what usage and the request log call it."
          error={errors.name}
        >
          {(control) => <Input {...control} defaultValue={editing?.name ?? ""} />}
        </Field>
        <Field
          name="endpoint_url"
          label="Base URL"
          hint="An OpenAI-compatible API (…/v1), on a public host, or a private one the service's MODEL_ALLOWED_HOSTS setting lists."
          error={errors.base_url}
        >
          {(control) => (
            <Input {...control} inputMode="url" defaultValue={editing?.base_url ?? "https://"} />
          )}
        </Field>
        <Field name="endpoint_model" label="Model" error={errors.model}>
          {(control) => <Input {...control} defaultValue={editing?.model ?? ""} />}
        </Field>
        <Field
          name="endpoint_timeout"
          label="Wait for the first token (ms)"
          hint="Then the next endpoint is tried; empty = an equal share of the time left."
          error={errors.timeout_ms}
        >
          {(control) => (
            <Input {...control} inputMode="numeric" defaultValue={editing?.timeout_ms ?? ""} />
          )}
        </Field>
        <Field name="endpoint_key_mode" label="API key">
          {(control) => (
            <Select
              {...control}
              value={mode}
              onChange={(event) => setMode(event.currentTarget.value as KeyMode)}
            >
              {editing?.api_key ? (
                <option value="keep">
                  Keep the stored key{editing.api_key.hint ? ` (${editing.api_key.hint})` : ""}
                </option>
              ) : null}
              <option value="value">A key (stored encrypted)</option>
              <option value="env">An environment variable (MODEL_…)</option>
              <option value="none">None</option>
            </Select>
          )}
        </Field>
        {(mode === "value" || mode === "env") && (
          <Field
            key={mode}
            name="endpoint_key"
            label={mode === "env" ? "Variable name" : "Key"}
            error={errors.api_key ?? errors.api_key_env}
          >
            {(control) => (
              <Input
                {...control}
                type={mode === "value" ? "password" : "text"}
                autoComplete="off"
                defaultValue={mode === "env" ? (editing?.api_key_env ?? "") : ""}
              />
            )}
          </Field>
        )}
      </div>
      <div className="row">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : editing ? "Save endpoint" : "Add endpoint"}
        </Button>
        <Button onClick={() => onDone(undefined)}>Cancel</Button>
      </div>
      <OutcomeMessage outcome={failure ? { ok: false, text: failure } : undefined} />
    </Panel>
  );
}
