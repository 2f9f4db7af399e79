import { createdKeySchema, createKeyInputSchema, listKeysOutputSchema } from "@/server/agent-keys";
import { example, problemSchema } from "@/server/http";
import { listPricesOutputSchema, priceSchema, setPriceInputSchema } from "@/server/prices";
import { agentUsageOutputSchema, allUsageOutputSchema } from "@/server/usage";

/** Real requests and answers of the service for keys, usage and prices. */

const PRICE = {
  model: "gpt-4o-mini",
  input_per_million: 0.15,
  output_per_million: 0.6,
  updated_at: "2026-11-24T08:52:06.112Z",
};

export const createKey = {
  mobileApp: example(createKeyInputSchema.omit({ aid: true }), "A key for the mobile app", {
    name: "mobile app",
  }),
  partner: example(
    createKeyInputSchema.omit({ aid: true }),
    "A partner's key: until the end of the year, 600 chats a minute",
    { name: "partner", expires_at: "2026-12-31T23:59:59Z", rate_limit_rpm: 600 },
  ),
};

export const createdKey = {
  made: example(createdKeySchema, "The key, shown this once", {
    id: "52bc2b2644ff",
    name: "mobile app",
    created_at: "2026-11-24T08:52:06.353Z",
    last_used_at: null,
    expires_at: null,
    expired: false,
    rate_limit_rpm: null,
    key: "ak_52bc2b2644ff_TIoHS3VwH_rvBK2mpi-N-eG7JrQ6Q5KtL9n-_g979HY",
  }),
};

export const keyList = {
  used: example(listKeysOutputSchema, "One key, used a moment ago", {
    keys: [
      {
        id: "52bc2b2644ff",
        name: "mobile app",
        created_at: "2026-11-24T08:52:06.353Z",
        last_used_at: "2026-11-24T08:52:06.366Z",
        expires_at: null,
        expired: false,
        rate_limit_rpm: null,
      },
    ],
  }),
};

export const noSuchKey = {
  unknown: example(problemSchema, "No such key", {
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail: "Agent 'support-bot' has no key '000000000000'.",
    code: "not_found",
    request_id: "4b904ca5-ea28-468a-acf1-99bc6f3f23a7",
  }),
};

const NO_USE = {
  messages: 0,
  runs: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost: 0,
  unpriced: 0,
  refused_quota: 0,
  refused_rate: 0,
};
const TODAY = {
  ...NO_USE,
  messages: 4,
  runs: 1,
  input_tokens: 195,
  output_tokens: 80,
  cost: 0.00007725,
};

/** Three days of one agent's usage: all the usage there is, so the same for one and for all. */
const THREE_DAYS = {
  from: "2026-11-22T00:00:00.000Z",
  to: "2026-11-25T00:00:00.000Z",
  points: [
    { ...NO_USE, start: "2026-11-22T00:00:00.000Z" },
    { ...NO_USE, start: "2026-11-23T00:00:00.000Z" },
    { ...TODAY, start: "2026-11-24T00:00:00.000Z" },
  ],
  totals: TODAY,
};

export const agentUsage = {
  threeDays: example(agentUsageOutputSchema, "Three days by day (from two days ago)", {
    aid: "support-bot",
    granularity: "day",
    ...THREE_DAYS,
    next_from: null,
  }),
};

export const allUsage = {
  threeDays: example(allUsageOutputSchema, "Three days by day, with the top agents", {
    granularity: "day",
    ...THREE_DAYS,
    next_from: null,
    top_agents: [
      {
        aid: "support-bot",
        name: "Support",
        messages: 4,
        runs: 1,
        input_tokens: 195,
        output_tokens: 80,
        cost: 0.00007725,
        unpriced: 0,
      },
    ],
    next_cursor: null,
  }),
};

export const usageCsv = {
  threeDays: {
    summary: "The same three days as CSV",
    value:
      "start,messages,runs,input_tokens,output_tokens,cost,unpriced,refused_quota,refused_rate\r\n2026-11-22T00:00:00.000Z,0,0,0,0,0,0,0,0\r\n2026-11-23T00:00:00.000Z,0,0,0,0,0,0,0,0\r\n2026-11-24T00:00:00.000Z,4,1,195,80,0.00007725,0,0,0\r\n",
  },
};

export const setPrice = {
  gpt4oMini: example(setPriceInputSchema.omit({ model: true }), "gpt-4o-mini's price", {
    input_per_million: 0.15,
    output_per_million: 0.6,
  }),
};

export const price = { gpt4oMini: example(priceSchema, "The price, set", PRICE) };

export const priceList = {
  one: example(listPricesOutputSchema, "One model priced", { prices: [PRICE] }),
};
