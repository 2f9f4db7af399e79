import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  deletePriceInputSchema,
  listPricesOutputSchema,
  priceSchema,
  setPriceInputSchema,
} from "@/server/prices";
import {
  agentUsageInputSchema,
  agentUsageOutputSchema,
  allUsageInputSchema,
  allUsageOutputSchema,
} from "@/server/usage";
import * as examples from "./examples-admin";
import { ADMIN, adminErrors, json, jsonBodyErrors, problem, split } from "./parts";

/** Usage over time and the price table (admin). */

const csv = { "text/csv": { schema: { type: "string" as const }, examples: examples.usageCsv } };
const agentUsage = split(agentUsageInputSchema, ["aid"]);
const setPrice = split(setPriceInputSchema, ["model"]);

export const usagePaths: ZodOpenApiPathsObject = {
  "/agents/{aid}/usage": {
    get: {
      operationId: "getAgentUsage",
      summary:
        "The agent's messages, runs, tokens, cost and refusals by UTC day or hour, from what was stored; CSV with Accept: text/csv.",
      security: ADMIN,
      requestParams: { path: agentUsage.path, query: agentUsage.rest },
      responses: {
        "200": {
          description: "One bucket per day or hour of the range (at most 366 days or 744 hours).",
          content: { ...json(agentUsageOutputSchema, examples.agentUsage), ...csv },
        },
        "400": problem("Invalid range or granularity, or a bad aid (as for GET /agents/{aid})."),
        ...adminErrors,
        "404": problem("Unknown agent."),
      },
    },
  },
  "/usage": {
    get: {
      operationId: "getUsage",
      summary:
        "Usage of every agent by UTC day or hour, with the agents that used the most tokens; CSV (the series) with Accept: text/csv.",
      security: ADMIN,
      requestParams: { query: allUsageInputSchema },
      responses: {
        "200": {
          description: "The series and one page of the top agents.",
          content: { ...json(allUsageOutputSchema, examples.allUsage), ...csv },
        },
        "400": problem("Invalid range, granularity, top or cursor."),
        ...adminErrors,
      },
    },
  },
  "/prices": {
    get: {
      operationId: "listPrices",
      summary: "The price table: what a million input and output tokens of each model cost.",
      security: ADMIN,
      responses: {
        "200": {
          description: "Every price.",
          content: json(listPricesOutputSchema, examples.priceList),
        },
        ...adminErrors,
      },
    },
  },
  "/prices/{model}": {
    put: {
      operationId: "setPrice",
      summary:
        "Set a model's price. Replies stored from now on are priced with it; stored costs stay as they were.",
      security: ADMIN,
      requestParams: { path: setPrice.path },
      requestBody: { required: true, content: json(setPrice.rest, examples.setPrice) },
      responses: {
        "200": { description: "The price.", content: json(priceSchema, examples.price) },
        "400": problem("Invalid price or model name, or malformed JSON."),
        ...adminErrors,
        "409": problem("The table is full (10,000 models)."),
        ...jsonBodyErrors,
      },
    },
    delete: {
      operationId: "deletePrice",
      summary: "Remove a model's price: its replies from now on have no cost (null).",
      security: ADMIN,
      requestParams: { path: deletePriceInputSchema },
      responses: {
        "204": { description: "Removed." },
        "400": problem(
          "Invalid model name (the NUL character, too long, a malformed percent-escape).",
        ),
        ...adminErrors,
        "404": problem("The model has no price."),
      },
    },
  },
};
