import { historyPageSchema } from "@/server/deployments";
import { example, problemSchema } from "@/server/http";

// Real answers of the service for the deployment paths.

const WORKER = "0xCbb4c49fB60eeC43AA3B50EbfBd61e50002b04D5";

export const historyPage = {
  newest: example(historyPageSchema, "The newest two changes, with one more before them", {
    history: [
      {
        id: 3,
        from_status: "deploying",
        to_status: "deployed",
        signer_address: WORKER,
        nonce: "3899da96fb8452a6e0c1adbfb6650d0e",
        deployment_details: { endpoint: "https://node.example/agent" },
        created_at: "2026-11-27T17:24:52.452Z",
      },
      {
        id: 2,
        from_status: "pick_up",
        to_status: "deploying",
        signer_address: WORKER,
        nonce: "824fe13d6fa1011bc6cc822eb67f7e30",
        deployment_details: { image: "agent:1.2" },
        created_at: "2026-11-27T17:24:52.258Z",
      },
    ],
    next_cursor: "eyJiZWZvcmUiOjJ9",
    prev_cursor: null,
  }),
};

export const detailsTooLarge = {
  merged: example(problemSchema, "Details over their bound once merged", {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail:
      "deployment_details would make the deployment's details 80050 bytes as JSON, over their bound of 65536 bytes (64 KiB); the deployment was not changed. Send fewer or smaller details, or set keys no longer needed to null.",
    code: "validation_failed",
    errors: [
      {
        field: "deployment_details",
        detail:
          "would make the deployment's details 80050 bytes as JSON, over their bound of 65536 bytes (64 KiB)",
      },
    ],
    request_id: "1dd91f33-d57a-4fb9-88ef-f67ae19feee2",
  }),
};
