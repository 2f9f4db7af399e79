import { A2A_PROTOCOL_VERSION, AgentCard } from "@a2a-js/sdk";

/** What an agent's card says of it: who it is, where its server is, and what a caller sends. */
export type CardAgent = { aid: string; name: string; keyOnly: boolean; publicUrl: string };

/** The card's JSON-RPC interface: the agent's A2A server. */
export const a2aUrl = ({ aid, publicUrl }: Pick<CardAgent, "aid" | "publicUrl">) =>
  `${publicUrl}/${encodeURIComponent(aid)}/a2a`;

/** The agent card, as the A2A SDK keeps it; `AgentCard.toJSON` gives the protocol's JSON. */
export function agentCardOf(agent: CardAgent): AgentCard {
  const bearer = { schemes: { bearer: { list: [] } } };
  return {
    name: agent.name,
    description: `The agent '${agent.name}' (${agent.aid}) of an Agent Service: send it a message and it replies. A context continues a conversation, whose recent messages it reads.`,
    supportedInterfaces: [
      {
        url: a2aUrl(agent),
        protocolBinding: "JSONRPC",
        tenant: "",
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            description: "A key of this agent (ak_…), or the admin key.",
            scheme: "Bearer",
            bearerFormat: "",
          },
        },
      },
    },
    // A public agent takes anyone; one that takes its keys only, its keys.
    securityRequirements: agent.keyOnly ? [bearer] : [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "chat",
        name: "Chat",
        description: `Chat with ${agent.name}: a text message in, its reply as a text artifact out.`,
        tags: ["chat"],
        examples: [],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The card as the protocol's JSON, what GET /{aid}/.well-known/agent-card.json answers. */
export const agentCardJson = (agent: CardAgent) =>
  AgentCard.toJSON(agentCardOf(agent)) as { name: string } & Record<string, unknown>;
