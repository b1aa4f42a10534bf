// fastify-gpt/otel: what the diagnostics channels tell (src/diagnostics.ts), as OpenTelemetry
// spans and metrics, for operators (Appendix B, "Failure Reporting"). It only listens: nothing it
// does reaches a reply, so every answer stays byte for byte what it is without it (draft §5.3).
// Labels come from closed sets (stages, outcomes, the forms' keywords, the addresses' paths),
// never from a body.
import { createRequire } from 'node:module'
import { context, metrics, SpanKind, SpanStatusCode, trace, type Attributes, type MeterProvider, type Span, type TracerProvider } from '@opentelemetry/api'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { acts, refusals, type ActTrace, type RefusalMessage } from '../diagnostics.ts'
import { GPT_ERR_OPTION_INVALID, GPT_ERR_OPTION_UNKNOWN } from '../errors.ts'

export interface OtelOptions {
  /**
   * A span of its own for each act, `act <address>`, under the request's. Default false:
   * @fastify/otel's handler span times POST's act already, and a span costs more than the rest.
   */
  actSpans?: boolean
  /** Where the act spans go. Default: the global one of @opentelemetry/api. */
  tracerProvider?: TracerProvider
  /** Where the metrics go. Default: the global one of @opentelemetry/api. */
  meterProvider?: MeterProvider
}

/** The attribute names, as spans and metrics carry them (docs/observability.md). */
export const ATTR = {
  address: 'gpt.address',
  outcome: 'gpt.outcome',
  via: 'gpt.via',
  actor: 'gpt.actor',
  stage: 'gpt.refusal.stage',
  keyword: 'gpt.refusal.keyword',
  schemaPath: 'gpt.refusal.schema_path',
  instancePath: 'gpt.refusal.instance_path',
  errorType: 'error.type'
} as const

/** Buckets for act durations in seconds, as OpenTelemetry's HTTP conventions advise. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }

/** Marks the requests of the app a plugin is registered on: each app's messages go to its own providers. */
const kOtel = Symbol('fastify-gpt/otel')

/** One registration's instruments. */
interface Instruments {
  /** Where act spans go, with `actSpans`. */
  readonly tracer: ReturnType<TracerProvider['getTracer']> | undefined
  readonly refusals: ReturnType<ReturnType<MeterProvider['getMeter']>['createCounter']>
  readonly acts: ReturnType<ReturnType<MeterProvider['getMeter']>['createCounter']>
  readonly duration: ReturnType<ReturnType<MeterProvider['getMeter']>['createHistogram']>
}

/** An act being traced: when it started, and its span, with `actSpans`. */
interface Running {
  readonly started: number
  readonly span: Span | undefined
}

function instrumentsOf (options: OtelOptions): Instruments {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter('fastify-gpt', version)
  return {
    tracer: options.actSpans === true ? (options.tracerProvider ?? trace.getTracerProvider()).getTracer('fastify-gpt', version) : undefined,
    refusals: meter.createCounter('gpt.act.refusals', { description: 'Bodies refused, by address, stage and keyword', unit: '{refusal}' }),
    acts: meter.createCounter('gpt.acts', { description: 'Acts run, by address and outcome', unit: '{act}' }),
    duration: meter.createHistogram('gpt.act.duration', {
      description: 'How long acts ran until their request was answered (a job: until its hand-off)',
      unit: 's',
      advice: { explicitBucketBoundaries: BUCKETS }
    })
  }
}

/**
 * The span of the request a message came in: @fastify/otel's request span where it runs (its
 * hooks' spans are active inside them), else the active one (an HTTP instrumentation's).
 */
function requestSpan (request: object): Span | undefined {
  const own = (request as { opentelemetry?: () => { span?: Span | null } }).opentelemetry
  return (typeof own === 'function' ? own.call(request).span : undefined) ?? trace.getActiveSpan()
}

const instrumentsFor = (request: object): Instruments | undefined => (request as { [kOtel]?: Instruments })[kOtel]

function onRefusal (message: unknown): void {
  const refusal = message as RefusalMessage
  const instruments = instrumentsFor(refusal.request)
  if (instruments === undefined) return // another app's
  const labels: Attributes = { [ATTR.address]: refusal.address, [ATTR.stage]: refusal.stage, [ATTR.via]: refusal.via }
  if (refusal.keyword !== undefined) labels[ATTR.keyword] = refusal.keyword
  instruments.refusals.add(1, labels)
  const span = requestSpan(refusal.request)
  if (span === undefined) return
  // Another object than the labels, which the meter may keep as a series' key.
  const attributes: Attributes = { ...labels, [ATTR.outcome]: 'refused', [ATTR.errorType]: 'refused' }
  if (refusal.schemaPath !== undefined) attributes[ATTR.schemaPath] = refusal.schemaPath
  if (refusal.instancePath !== undefined) attributes[ATTR.instancePath] = refusal.instancePath
  if (refusal.actor !== undefined) attributes[ATTR.actor] = refusal.actor
  span.setAttributes(attributes)
}

const running = new WeakMap<ActTrace, Running>()

function onStart (message: unknown): void {
  const act = message as ActTrace
  const instruments = instrumentsFor(act.request)
  if (instruments === undefined) return
  running.set(act, { started: performance.now(), span: instruments.tracer === undefined ? undefined : actSpan(instruments.tracer, act) })
}

/** The act's own span, under its request's. */
function actSpan (tracer: NonNullable<Instruments['tracer']>, act: ActTrace): Span {
  const parent = requestSpan(act.request)
  const attributes: Attributes = { [ATTR.address]: act.address, [ATTR.via]: act.via }
  if (act.actor !== undefined) attributes[ATTR.actor] = act.actor
  return tracer.startSpan(`act ${act.address}`, { kind: SpanKind.INTERNAL, attributes },
    parent === undefined ? context.active() : trace.setSpan(context.active(), parent))
}

/** `end` of a plain result, or `asyncEnd` of a promise: the act's outcome is known. */
function onEnd (message: unknown): void {
  const act = message as ActTrace
  const traced = running.get(act)
  if (traced === undefined || act.outcome === undefined) return // a promise: asyncEnd comes
  running.delete(act)
  const instruments = instrumentsFor(act.request) as Instruments
  const labels: Attributes = { [ATTR.address]: act.address, [ATTR.outcome]: act.outcome, [ATTR.via]: act.via }
  const failed = act.outcome === 'failed'
  if (failed) labels[ATTR.errorType] = errorType(act.error)
  instruments.acts.add(1, labels)
  instruments.duration.record((performance.now() - traced.started) / 1000, labels)
  requestSpan(act.request)?.setAttributes(labels)
  const span = traced.span
  if (span === undefined) return
  span.setAttributes(labels)
  if (failed) {
    span.setStatus({ code: SpanStatusCode.ERROR })
    if (act.error instanceof Error) span.recordException(act.error)
  }
  span.end()
}

/** A failure's `error.type`: fastify-gpt's code for a timeout, else the kind of failure, never its message. */
function errorType (error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === 'GPT_ERR_ACT_TIMEOUT' ? code : 'GPT_ERR_ACT_FAILED'
}

/** How many registrations listen: the channels are subscribed while any does. */
let listening = 0

function listen (): void {
  if (listening++ > 0) return
  refusals.subscribe(onRefusal)
  acts.start.subscribe(onStart)
  acts.end.subscribe(onEnd)
  acts.asyncEnd.subscribe(onEnd)
}

function unlisten (): void {
  if (--listening > 0) return
  refusals.unsubscribe(onRefusal)
  acts.start.unsubscribe(onStart)
  acts.end.unsubscribe(onEnd)
  acts.asyncEnd.unsubscribe(onEnd)
}

/** The options, and those Fastify's register takes for every plugin. */
const KNOWN = new Set(['actSpans', 'tracerProvider', 'meterProvider', 'prefix', 'logLevel', 'logSerializers'])

function checkOptions (options: Record<string, unknown>): OtelOptions {
  if (options['actSpans'] !== undefined && typeof options['actSpans'] !== 'boolean') throw new GPT_ERR_OPTION_INVALID('fastify-gpt/otel', '"actSpans" must be a boolean')
  for (const [name, method] of [['tracerProvider', 'getTracer'], ['meterProvider', 'getMeter']] as const) {
    const value = options[name] as Record<string, unknown> | undefined
    if (value !== undefined && (value === null || typeof value[method] !== 'function')) {
      throw new GPT_ERR_OPTION_INVALID('fastify-gpt/otel', `"${name}" must be an OpenTelemetry ${name === 'tracerProvider' ? 'TracerProvider' : 'MeterProvider'} (with ${method}())`)
    }
  }
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name))
  if (unknown !== undefined) throw new GPT_ERR_OPTION_UNKNOWN('fastify-gpt/otel', `"${unknown}"`)
  return options
}

async function plugin (app: FastifyInstance, options: OtelOptions): Promise<void> {
  const instruments = instrumentsOf(checkOptions(options as Record<string, unknown>))
  // A getter on the app's requests (its encapsulated instances' too): read only when a message comes.
  app.decorateRequest(kOtel, { getter: () => instruments })
  listen()
  app.addHook('onClose', async () => { unlisten() })
}

export const otel = fp(plugin as FastifyPluginAsync<OtelOptions>, { fastify: '5.x', name: 'fastify-gpt/otel' })
export default otel
