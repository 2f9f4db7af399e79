import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { stopTracing, tracingOn } from "./tracing-state.ts";

/**
 * Spans, when OTEL_TRACES_EXPORTER=otlp has started the SDK in this process (tracing-sdk.ts):
 * otherwise every helper here runs its work and nothing else, so tracing off costs a flag's read.
 * The flag and the SDK are on globalThis, as @opentelemetry/api keeps its registrations: the
 * server entry and Next.js's bundle each have a copy of this module.
 */

/**
 * Starts the SDK (OTEL_TRACES_EXPORTER=otlp): the server entry calls this before Next.js loads.
 * Imported only then, so that a service that does not trace never loads it.
 */
export async function startTracing(settings: {
  serviceName: string;
  protocol: "http/protobuf" | "http/json";
  scheduleDelayMs: number;
}): Promise<void> {
  const sdk = await import("./tracing-sdk.ts");
  sdk.startSdk(settings);
}

export { type Context, SpanKind, stopTracing, tracingOn };

const tracer = () => trace.getTracer("agent-service");

type SpanOptions = { kind?: SpanKind; attributes?: Attributes };

/**
 * A span that the caller ends (`end`), child of `parent` (default: the active context), and the
 * context to make its children in; undefined when tracing is off.
 */
export function startSpan(
  name: string,
  options: SpanOptions = {},
  parent: Context = context.active(),
): { span: Span; context: Context } | undefined {
  if (!tracingOn()) return undefined;
  const span = tracer().startSpan(name, options, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Marks `span` failed with `error`'s name only: messages may hold what callers sent. */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  const type = (error as { code?: unknown })?.code ?? (error as Error | undefined)?.name;
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute("error.type", typeof type === "string" ? type : "_OTHER");
}

/** Runs `work` in a span (ended when it settles) made active for what it calls. */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
  parent?: Context,
): Promise<T> {
  const started = startSpan(name, options, parent);
  if (!started) return work(undefined);
  try {
    return await context.with(started.context, () => work(started.span));
  } catch (error) {
    failSpan(started.span, error);
    throw error;
  } finally {
    started.span.end();
  }
}

/**
 * A generator's steps in a span's context, the span ended with it: a generator's body runs in
 * the context of whoever calls `next`, not of where it was made.
 */
export async function* inSpanSteps<T, R>(
  started: { span: Span; context: Context } | undefined,
  source: AsyncGenerator<T, R, undefined>,
): AsyncGenerator<T, R, undefined> {
  if (!started) return yield* source;
  try {
    for (;;) {
      const step = await context.with(started.context, () => source.next());
      if (step.done) return step.value;
      yield step.value;
    }
  } catch (error) {
    failSpan(started.span, error);
    throw error;
  } finally {
    await source.return?.(undefined as R);
    started.span.end();
  }
}

/** The W3C `traceparent` (and `tracestate`) of `from`, to send on; undefined when off. */
export function traceHeaders(from: Context = context.active()): Record<string, string> | undefined {
  if (!tracingOn()) return undefined;
  const headers: Record<string, string> = {};
  propagation.inject(from, headers);
  return headers;
}

/** The context a request's `traceparent` names, for its server span. */
export function extractTraceContext(headers: Record<string, string | string[] | undefined>) {
  return propagation.extract(context.active(), headers);
}

export const activeContext = (): Context => context.active();

export function withContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}
