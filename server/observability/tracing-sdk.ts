import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { markTracingOn } from "./tracing-state.ts";

/**
 * Starts the OpenTelemetry SDK in this process: spans batched and exported over OTLP/HTTP, W3C
 * trace context read from requests and sent on. Loaded by the server entry only when
 * OTEL_TRACES_EXPORTER=otlp, so a service that does not trace never loads it. The exporter reads
 * its endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables itself.
 */
export function startSdk(settings: {
  serviceName: string;
  protocol: "http/protobuf" | "http/json";
  scheduleDelayMs: number;
}): void {
  const exporter = settings.protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.scheduleDelayMs }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  markTracingOn(() => provider.shutdown());
}
