// OpenTelemetry for the example host (OTEL=console npm start): @fastify/otel's request spans and
// fastify-gpt/otel's attributes, acts and metrics, printed one line each to stderr, so a refusal's
// stage and keyword show without `explain`, while the actor still gets its bare 204.
import { context, metrics, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import otel from 'fastify-gpt/otel'

/** Registers the instrumentation on `app`, before its addresses (@fastify/otel wires routes added after it). */
export async function telemetry (app) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanLines)] }))
  const interval = Number(process.env.OTEL_METRIC_EXPORT_INTERVAL ?? 15_000)
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricLines, exportIntervalMillis: interval })] }))
  const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: false })
  await app.register(instrumentation.plugin())
  await app.register(otel) // the global providers set above
}

const attributes = (of) => Object.entries(of).filter(([name]) => name.startsWith('gpt.') || name === 'error.type' || name === 'http.response.status_code')
  .map(([name, value]) => `${name}=${value}`).join(' ')

/** The request spans and the act spans, one line each; the spans of each hook are left out. */
const spanLines = {
  export (spans, done) {
    for (const span of spans) {
      if (span.name !== 'request' && !span.name.startsWith('act ')) continue
      const ms = (span.duration[0] * 1e3 + span.duration[1] / 1e6).toFixed(1)
      process.stderr.write(`otel span ${span.name} ${span.attributes['http.request.method'] ?? ''} ${span.attributes['url.path'] ?? ''} ${ms} ms ${attributes(span.attributes)}\n`)
    }
    done({ code: 0 })
  },
  shutdown: async () => {}
}

/** fastify-gpt's metrics, one line a data point. */
const metricLines = {
  export (batch, done) {
    for (const metric of batch.scopeMetrics.flatMap((scope) => scope.metrics)) {
      for (const point of metric.dataPoints) {
        const value = typeof point.value === 'number' ? point.value : `count=${point.value.count} sum=${point.value.sum.toFixed(4)}`
        process.stderr.write(`otel metric ${metric.descriptor.name} ${value} ${attributes(point.attributes)}\n`)
      }
    }
    done({ code: 0 })
  },
  forceFlush: async () => {},
  shutdown: async () => {}
}
