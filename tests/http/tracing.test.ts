import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver";
import { sendAsAdmin, TEST_ADMIN_KEY } from "../helpers/server";

const SERVER = 2;
const CLIENT = 3;

/** A client's own span, as its `traceparent` names it: a new trace each time. */
function clientSpan() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The trace and parent span a W3C `traceparent` names. */
function parentOf(traceparent: unknown): { traceId: string; spanId: string } | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(traceparent));
  return match ? { traceId: match[1] as string, spanId: match[2] as string } : undefined;
}

/**
 * Issue #49, item 4: OpenTelemetry traces over OTLP/HTTP, received by a collector stand-in. One
 * chat with a tool call, its client's `traceparent` given: the tree of the request, the chat, its
 * two model turns (GenAI attributes), the tool call and the statements, and the trace sent on to
 * the model and the MCP server. Then protobuf, the default encoding; and nothing when off.
 */
describe("OpenTelemetry traces", () => {
  let receiver: OtlpReceiver;
  let mcp: TestMcpServer;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    [receiver, mcp] = await Promise.all([startOtlpReceiver(), startMcpServer()]);
    running = await startModelServer("pglite", {
      SCHEDULER: "off",
      MCP_ALLOWED_HOSTS: "127.0.0.1",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "agent-service-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
  });
  afterAll(async () => {
    await running?.stop();
    await Promise.all([receiver?.close(), mcp?.close()]);
  });

  it("exports one chat with a tool call as a tree in the client's trace", async () => {
    const server = (running as ModelServer).server;
    const fake = (running as ModelServer).fake;
    const made = await sendAsAdmin(server, "POST", "/agents", {
      aid: "traced",
      model: "gpt-traced",
      mcp_servers: [{ name: "calc", url: mcp.url }],
    });
    expect(made.status).toBe(201);
    fake.behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
      { kind: "reply", text: "5" },
    );
    fake.headers.splice(0);
    const client = clientSpan();
    const answer = await fetch(`${server.url}/traced/chat?q=2%2B3`, {
      headers: {
        accept: "application/json",
        authorization: `Bearer ${TEST_ADMIN_KEY}`,
        traceparent: client.traceparent,
      },
    });
    expect(answer.status).toBe(200);
    expect((await answer.json()).reply).toBe("5");

    const ofTrace = () => receiver.spans.filter((span) => span.traceId === client.traceId);
    await expect
      .poll(() => ofTrace().filter((span) => span.kind === SERVER).length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const spans = ofTrace();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const one = (name: string): ReceivedSpan => {
      expect(
        named(name),
        `spans named ${name}: ${spans.map((s) => s.name).join(", ")}`,
      ).toHaveLength(1);
      return named(name)[0] as ReceivedSpan;
    };
    const isUnder = (child: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
      const parent = spans.find((span) => span.spanId === child.parentSpanId);
      return parent !== undefined && (parent === ancestor || isUnder(parent, ancestor));
    };

    // The request: the client's span its parent.
    const request = spans.find((span) => span.kind === SERVER) as ReceivedSpan;
    expect(request.parentSpanId).toBe(client.spanId);
    expect(request.attributes).toMatchObject({
      "http.request.method": "GET",
      "url.path": "/traced/chat",
      "http.response.status_code": 200,
    });
    expect(request.resource["service.name"]).toBe("agent-service-under-test");

    // The chat, in the request.
    const chat = one("invoke_agent traced");
    expect(isUnder(chat, request)).toBe(true);
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "traced",
      "gen_ai.usage.input_tokens": 20,
      "gen_ai.usage.output_tokens": 10,
    });

    // Its statements, two model turns and the tool call between them, each the chat's child.
    const opening = one("chat.opening");
    const store = one("chat.store");
    const turns = named("chat gpt-traced");
    const tool = one("execute_tool add");
    for (const child of [opening, store, tool, ...turns])
      expect(child.parentSpanId).toBe(chat.spanId);
    expect(opening.attributes["db.system.name"]).toBe("postgresql");
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(turn.kind).toBe(CLIENT);
      expect(turn.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai-compatible",
        "gen_ai.request.model": "gpt-traced",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": ["stop"],
      });
    }
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "add",
    });

    // The trace went on: each model request named its turn's span, the tool call its own.
    const sentToModel = fake.headers.map((headers) => parentOf(headers.traceparent));
    expect(sentToModel.map((parent) => parent?.traceId)).toEqual([client.traceId, client.traceId]);
    expect(new Set(sentToModel.map((parent) => parent?.spanId))).toEqual(
      new Set(turns.map((turn) => turn.spanId)),
    );
    const sentToTool = mcp.headers
      .map((headers) => parentOf(headers.traceparent))
      .filter((parent) => parent?.traceId === client.traceId);
    // The tools/call under the tool's span; listing the tools, when the chat opened them, the chat's.
    expect(new Set(sentToTool.map((parent) => parent?.spanId))).toEqual(
      new Set([chat.spanId, tool.spanId]),
    );
  });
});

describe("OpenTelemetry traces in protobuf, and none when off", () => {
  let receiver: OtlpReceiver;
  let receiverOff: OtlpReceiver;
  let protobuf: ModelServer | undefined;
  let off: ModelServer | undefined;

  beforeAll(async () => {
    [receiver, receiverOff] = await Promise.all([startOtlpReceiver(), startOtlpReceiver()]);
    [protobuf, off] = await Promise.all([
      startModelServer("pglite", {
        SCHEDULER: "off",
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
      }),
      startModelServer("pglite", {
        SCHEDULER: "off",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverOff.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([protobuf?.stop(), off?.stop()]);
    await Promise.all([receiver?.close(), receiverOff?.close()]);
  });

  it("exports in protobuf by default, and sends nothing, nor any traceparent, when off", async () => {
    for (const running of [protobuf, off] as ModelServer[]) {
      const made = await sendAsAdmin(running.server, "POST", "/agents", { aid: "plain" });
      expect(made.status).toBe(201);
      const answer = await fetch(`${running.server.url}/plain/chat?q=hi`, {
        headers: { traceparent: clientSpan().traceparent },
      });
      expect(answer.status).toBe(200);
    }
    await expect.poll(() => receiver.exports.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [first] = receiver.exports;
    expect(first?.headers["content-type"]).toBe("application/x-protobuf");
    expect(first?.bytes).toBeGreaterThan(0);
    expect(parentOf((protobuf as ModelServer).fake.headers.at(-1)?.traceparent)).toBeDefined();
    // Off: nothing exported, though its chat ended before the other's export; and the model was
    // called with no trace context (the client's is not passed through).
    expect(receiverOff.exports).toEqual([]);
    expect((off as ModelServer).fake.headers.at(-1)?.traceparent).toBeUndefined();
  });
});
