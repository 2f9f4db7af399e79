import { databaseUnavailable, PUBLIC, problem } from "../documented";
import { endpoint } from "../endpoint";

export const nonceEndpoints = [
  endpoint({
    method: "GET",
    path: "/v1/nonce",
    procedure: (p) => p.nonces.issue,
    operationId: "getNonce",
    summary: "A single-use nonce for a Sign-In with Ethereum message; it expires after 10 minutes.",
    security: PUBLIC,
    answers: { 200: { description: "The nonce." } },
    refusals: {
      400: problem("Missing or invalid address."),
      429: problem("rate_limited: this client address asked for too many nonces a minute."),
      503: databaseUnavailable,
    },
  }),
];
