"use client";

import { useState } from "react";
import type { Webhook } from "@/server/webhooks/schema";
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENT_TYPES } from "@/server/webhooks/view";
import { Button } from "../ui/button";
import { Checkbox } from "../ui/checkbox";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { ErrorText } from "../ui/notice";
import { Panel } from "../ui/panel";
import { useFormSubmit } from "../ui/use-form-submit";

/** The events an endpoint may subscribe to (webhook.test is sent when asked, not subscribed). */
type Subscribable = (typeof WEBHOOK_EVENT_TYPES)[number];

export type WebhookFields = { url: string; description: string | null; events: Subscribable[] };

/**
 * A webhook endpoint's URL, description and events, for adding one and for editing one. The
 * service checks it (the URL's scheme and host, the events): its refusals are shown beside the
 * fields they name, and the focus goes to the first of them. The form's first field has the
 * focus when it opens.
 */
export function WebhookForm({
  webhook,
  label,
  submitLabel,
  onSubmit,
}: {
  webhook?: Webhook;
  label: string;
  submitLabel: string;
  onSubmit: (fields: WebhookFields) => Promise<unknown>;
}) {
  const [events, setEvents] = useState<Set<Subscribable>>(() => new Set(webhook?.events ?? []));
  const { form, submit, errors, failure, busy } = useFormSubmit({
    read: (data): WebhookFields => {
      const description = String(data.get("webhook_description") ?? "").trim();
      return {
        url: String(data.get("webhook_url") ?? "").trim(),
        description: description === "" ? null : description,
        events: WEBHOOK_EVENT_TYPES.filter((type) => events.has(type)),
      };
    },
    send: onSubmit,
    refused: "Not saved",
    // An event's error (`events.2`) is shown once, by the events.
    fieldErrors: (problem) =>
      Object.fromEntries((problem.errors ?? []).map((e) => [e.field.split(".")[0], e.detail])),
  });

  return (
    <Panel as="form" ref={form} onSubmit={submit} noValidate aria-label={label}>
      <div className="form-grid">
        <Field
          name="webhook_url"
          label="URL"
          hint="Where events are sent: an https address, or a private one the service's WEBHOOK_ALLOWED_HOSTS setting lists."
          error={errors.url}
        >
          {(control) => (
            <Input {...control} inputMode="url" defaultValue={webhook?.url ?? "https://"} />
          )}
        </Field>
        <Field name="webhook_description" label="Description (optional)" error={errors.description}>
          {(control) => <Input {...control} defaultValue={webhook?.description ?? ""} />}
        </Field>
      </div>
      <Panel as="fieldset">
        <legend>Events</legend>
        {errors.events && <ErrorText id="webhook-events-error">{errors.events}</ErrorText>}
        {WEBHOOK_EVENT_TYPES.map((type, i) => (
          <Checkbox
            // The first box carries the events' error, so that the focus can go to it.
            {...(errors.events && i === 0
              ? { "aria-invalid": true, "aria-describedby": "webhook-events-error" }
              : {})}
            key={type}
            name={`event-${type}`}
            label={
              <>
                <code>{type}</code>{" "}
                <span className="muted">{WEBHOOK_EVENT_DESCRIPTIONS[type]}</span>
              </>
            }
            checked={events.has(type)}
            onChange={(event) => {
              const checked = event.currentTarget.checked;
              setEvents((before) => {
                const next = new Set(before);
                if (checked) next.add(type);
                else next.delete(type);
                return next;
              });
            }}
          />
        ))}
      </Panel>
      <div className="row">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </Button>
      </div>
      {failure && <ErrorText role="alert">{failure}</ErrorText>}
    </Panel>
  );
}
