import { listAuditOutputSchema } from "@/server/audit";
import { example } from "@/server/http";

/** An audit page as the service gave it: a limit raised, then a key made. */

export const list = {
  json: example(listAuditOutputSchema, "A key made after a limit was raised", {
    entries: [
      {
        id: 42,
        at: "2026-11-29T10:02:11.480Z",
        actor: "wallet:0x71c7656ec7ab88b098defb751b7401b5f6d8976f",
        actor_via: "session",
        action: "agent_key.created",
        target: "agent_key:support-bot/ak_7Qx2",
        before: null,
        after: {
          id: "ak_7Qx2",
          name: "mobile app",
          created_at: "2026-11-29T10:02:11.480Z",
          last_used_at: null,
          expires_at: null,
          expired: false,
          rate_limit_rpm: null,
        },
        request_id: "6f1c2a9e-0b7d-4e8a-9c31-5d2e7a4b8f10",
        client: "3b9f0c1d2e4a5b6c",
      },
      {
        id: 41,
        at: "2026-11-29T10:01:58.002Z",
        actor: "admin-key",
        actor_via: "key",
        action: "agent.updated",
        target: "agent:support-bot",
        before: { aid: "support-bot", rate_limit_rpm: 60 },
        after: { aid: "support-bot", rate_limit_rpm: 120 },
        request_id: "0c8e4b2a-7d1f-4a6e-b9c3-2e5f8a1d7b40",
        client: "3b9f0c1d2e4a5b6c",
      },
    ],
    next_cursor: "eyJiZWZvcmUiOjQxfQ",
  }),
};
