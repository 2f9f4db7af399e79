import type { Endpoint } from "../endpoint";
import { agentEndpoints } from "./agents";
import { chatEndpoints } from "./chat";
import { completionEndpoints } from "./completions";
import { deploymentEndpoints } from "./deployments";
import { keyEndpoints } from "./keys";
import { modelEndpoints } from "./models";
import { nonceEndpoints } from "./nonces";
import { operationEndpoints } from "./operations";
import { priceEndpoints } from "./prices";
import { requestEndpoints } from "./requests";
import { runEndpoints } from "./runs";
import { threadEndpoints } from "./threads";
import { usageEndpoints } from "./usage";
import { webhookEndpoints } from "./webhooks";

/**
 * Every REST operation of the service, each declared once. The route files and the OpenAPI
 * document are made from this table, in this order (the document lists the paths so).
 */
export const ENDPOINTS: readonly Endpoint[] = [
  ...agentEndpoints,
  ...runEndpoints,
  ...chatEndpoints,
  ...completionEndpoints,
  ...modelEndpoints,
  ...threadEndpoints,
  ...keyEndpoints,
  ...usageEndpoints,
  ...requestEndpoints,
  ...priceEndpoints,
  ...nonceEndpoints,
  ...deploymentEndpoints,
  ...webhookEndpoints,
  ...operationEndpoints,
];
