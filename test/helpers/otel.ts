// OpenTelemetry as a host runs it, with the real packages: @fastify/otel's request spans, the SDK's
// tracer with an in-memory exporter, and its meter with a reader the test collects from.
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { MeterProvider, MetricReader, type DataPoint } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import type { FastifyInstance } from 'fastify'
import otel from '../../src/otel/index.ts'

// As a host's SDK does: one context manager for the process, so spans follow the request.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())

/** A reader collected on demand. */
class Reader extends MetricReader {
  protected async onForceFlush (): Promise<void> {}
  protected async onShutdown (): Promise<void> {}
}

export interface Telemetry {
  readonly spans: () => ReadableSpan[]
  /** The data points of the metric `name`, as collected now. */
  readonly points: (name: string) => Promise<Array<DataPoint<unknown>>>
}

/** Registers @fastify/otel and fastify-gpt/otel on `app`, to providers of their own. */
export async function instrument (app: FastifyInstance, actSpans = false): Promise<Telemetry> {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new Reader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: false })
  instrumentation.setTracerProvider(tracerProvider)
  await app.register(instrumentation.plugin())
  await app.register(otel, { tracerProvider, meterProvider, actSpans })
  return {
    spans: () => exporter.getFinishedSpans(),
    points: async (name) => {
      const { resourceMetrics } = await reader.collect()
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name)
      return (metric?.dataPoints ?? []) as Array<DataPoint<unknown>>
    }
  }
}

/** The spans @fastify/otel opened for each request (named `request`). */
export const requestSpans = (telemetry: Telemetry): ReadableSpan[] => telemetry.spans().filter((span) => span.name === 'request')
