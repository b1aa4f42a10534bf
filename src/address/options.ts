import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Body } from './body.ts'
import { GPT_ERR_FORM_NOT_JSON, GPT_ERR_OPTION_INVALID, GPT_ERR_OPTION_UNKNOWN } from '../errors.ts'
import { freezeJson, type JsonObject } from '../form/compile.ts'
import { checkMessages, checkText, resolveLimits, type Limits, type LimitsOption } from '../limits.ts'
import { resolveShare, type ShareOptions, type ShareSettings } from '../store/share.ts'
import type { DecoderName, RuntimeVerdict } from '../lint/types.ts'
import type { AddressView, Content, HtmlPage, Message } from '../types.ts'
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_DEPTH, MAX_DELAY } from '../defaults.ts'
import { FIELD_VALUE } from '../fields.ts'
import { resolveLinks, type LinkOption } from '../links/option.ts'
import { LinkSet } from '../links/set.ts'
import { checkAnnotations, checkIcons, checkTitle, frozen, type Annotations, type Icon } from './metadata.ts'
import { resolveResult, type ResultForm } from './result.ts'

export type { AddressView, Annotations, Content, HtmlPage, Icon, Message }
export { DEFAULT_BODY_LIMIT }

/** Called once per accepted act with exactly the value the actor sent (draft §5.1). */
export type Act<F = object> =
  (body: Body<F>, request: FastifyRequest, reply: FastifyReply, context: ActContext) => unknown

/** What an act is given beside the body (docs/jobs.md). */
export interface ActContext {
  /**
   * Aborted when the act should stop: its job was cancelled, or it ran past `actTimeout`. Never
   * because the client went away.
   */
  readonly signal: AbortSignal
}

/** Acts that outlive their request (docs/jobs.md); every member is optional. */
export interface BackgroundOptions {
  /** Milliseconds an act may run before its answer is a job's handle. Default 5000. */
  after?: number
  /** Milliseconds a finished job's address is kept, then 404. Default 900000 (15 minutes). */
  keep?: number
  /** Jobs held at once (running, or finished and kept), acts still deciding included. Default 100. */
  maxJobs?: number
  /** Milliseconds suggested between two looks at a running job (its Retry-After). Default 2000. */
  poll?: number
  /** Milliseconds between two heartbeats (an empty line) of a quiet progress stream. Default 15000. */
  heartbeat?: number
  /** Requests a minute per client to the job addresses and streams of this address. Default 600. */
  rateMax?: number
  /**
   * With `share`: milliseconds a running job outlives the last sign of life of the process that
   * runs it; then any instance reads it as failed. Default 10000.
   */
  lease?: number
}

/** A change of content at run time; what is left out stays as it is. */
export interface ContentChange {
  form?: object
  prompt?: string
  messages?: readonly Message[]
}

/**
 * What `update()` takes: a change, or a function of the current content returning one. With
 * sharing on, the function is given the latest stored edition and may be called again if another
 * instance stores one first.
 */
export type Update = ContentChange | ((current: Content) => ContentChange)

/** A live address: what it publishes now, and a way to change it (Appendix B, "Form Change"). */
export interface GptAddress extends AddressView {
  /** The strong entity tag of the current JSON arrival. */
  readonly etag: string
  /**
   * Builds the new arrival and validator first, then swaps them in at once: every request sees
   * either the old content or the new, never a mix. Throws the same named errors as registration
   * and then changes nothing.
   */
  update (change: Update): void
}

/** A live address whose editions are shared through Redis with every instance serving it. */
export interface SharedGptAddress extends AddressView {
  /** The strong entity tag of the current JSON arrival: the same on every instance once it has the edition. */
  readonly etag: string
  /**
   * Applies the change to the latest stored edition and stores the result, retrying if another
   * instance stored one first. Resolves once it is stored and served here; rejects with a named
   * error (a refused form, or `GPT_ERR_EDITION_NOT_STORED`) and then nothing changed.
   */
  update (change: Update): Promise<void>
}

interface CommonOptions<F> {
  /** `s`: a JSON Schema 2020-12 object, published on GET and enforced on POST as one value. */
  form: F
  /**
   * Runs for every act; its result is sent as 200 application/json. Declared as a method so that,
   * for a form typed loosely, an act may name the body type it expects.
   */
  act (body: Body<F>, request: FastifyRequest, reply: FastifyReply, context: ActContext): unknown
  /** `p`: what this address is and what to do. Default `''`. */
  prompt?: string
  /** `m`: prior messages. Default `[]`. */
  messages?: readonly Message[]
  /** Value of the advisory `GPT-Type` response header (draft §3.2). */
  type?: string
  /**
   * What the address is called, in one line: its page's `<title>`, its MCP tool's `title`, its
   * OpenAPI summary. Default: the first sentence of `prompt` (of each edition's).
   */
  title?: string
  /** MCP's tool hints, as the author declares them; none is guessed (docs/mcp.md). Default: none. */
  annotations?: Annotations
  /** Icons an MCP client may show beside the tool (MCP 2025-11-25). Default: none. */
  icons?: readonly Icon[]
  /**
   * A JSON Schema 2020-12 object of what `act` returns, checked as the form is at registration;
   * each result is checked before it is sent, and one it does not admit is a bare 500
   * (GPT_ERR_RESULT_INVALID), never sent. Published as the MCP tool's outputSchema and OpenAPI's
   * 200. Default: none.
   */
  result?: object
  /** Largest act body in bytes. Default 65536 (64 KiB). */
  bodyLimit?: number
  /**
   * Milliseconds from the start of reading an act body to its last byte. A body still incomplete
   * then is rejected like any other, and its connection closed. Default 10000.
   */
  bodyTimeout?: number
  /**
   * Deepest nesting of arrays and objects in an act body. Default 64, or the form's own bound
   * when the form admits deeper values and bounds their depth (up to 512).
   */
  maxDepth?: number
  /**
   * Lint the form at registration and on each update, logging what it found in one line at info
   * (docs/forms.md). `{ require: [...] }`: a form one of these decoders would refuse or loosen fails
   * with GPT_ERR_FORM_DECODER. `false`: no lint. Default `true`.
   */
  lint?: boolean | { readonly require: readonly DecoderName[] }
  /** `@fastify/rate-limit` options for this address, or `false`. Default 60 requests a minute per client. */
  rateLimit?: RateLimitPluginOptions | false
  /**
   * Serve an HTML view to clients preferring text/html; a function returns the page, or the page
   * and its headers (docs/html-view.md). Default `true`.
   */
  html?: boolean | ((address: AddressView) => string | HtmlPage)
  /**
   * Show the address's routes in an OpenAPI document built by @fastify/swagger, described by
   * reference to the arrival, never with a copy of the form (docs/hosts.md). `{ tags }` tags them.
   * Default `false`: hidden.
   */
  openapi?: boolean | { readonly tags: readonly string[] }
  /** Refuse with 412 an act whose If-Match names an arrival that is no longer current. Default `false`. */
  ifMatch?: boolean
  /** Development only: answer a rejected body with 422 problem+json naming why. Default `false`. */
  explain?: boolean
  /** Milliseconds an act may take before the client gets 503 and its result is dropped. Default none. */
  actTimeout?: number
  /**
   * How large an edition may be: `formBytes` (default 262144), `formDepth` (256), `promptBytes`
   * (262144), `messages` (1000), `messagesBytes` (1048576). Checked first, at registration, on each
   * update and for each edition read from Redis; past one, GPT_ERR_FORM_TOO_LARGE,
   * GPT_ERR_FORM_TOO_DEEP or GPT_ERR_CONTENT_TOO_LARGE (docs/validation.md).
   */
  limits?: LimitsOption
  /**
   * The addresses this one names, in the arrival's `l` and its `Link` header (docs/links.md): paths
   * of fastify-gpt addresses on this host, each described from its own prompt, or `{ href, p? }` for
   * an http(s) URL elsewhere. A path with no address fails `ready()` (GPT_ERR_LINK_UNRESOLVED).
   */
  links?: readonly LinkOption[]
  /**
   * An act still running after `after` ms (at once on `Prefer: respond-async`) answers with the
   * handle of a job address that reports its progress and result (docs/jobs.md). Default none.
   */
  background?: BackgroundOptions
  /**
   * Run an act carrying an `Idempotency-Key` once: a retry with the same key and body gets the kept
   * answer again, byte for byte (docs/idempotency.md). `true` for the defaults. Default `false`.
   */
  idempotency?: boolean | IdempotencyOptions
}

/** Retries that cannot act twice (docs/idempotency.md); every member is optional. */
export interface IdempotencyOptions {
  /** Milliseconds an act's answer is kept for a retry, from the act's end. Default 86400000 (24 hours). */
  keep?: number
  /** Keys held at once, running or kept (with `share`, in Redis across every instance), one client at most a quarter; past it, 503. Default 10000. */
  maxKeys?: number
  /** Bytes of kept answers held at once (with `share`, in Redis across every instance), one client at most a quarter; past it, 503. Default 134217728 (128 MiB). */
  maxBytes?: number
  /** With `share`: milliseconds a running act's key outlives the last sign of life of its process. Default 10000. */
  lease?: number
}

/** An address whose content lives in this process alone. */
export interface LocalGptOptions<F = object> extends CommonOptions<F> {
  share?: undefined
  /** Receives the address's handle once it is registered. */
  onAddress?: (address: GptAddress) => void
}

/** An address whose content is one value across every instance sharing its Redis key. */
export interface SharedGptOptions<F = object> extends CommonOptions<F> {
  /** Share the address's editions through Redis (docs/deploying.md). */
  share: ShareOptions
  /** Receives the address's handle once it is registered and holds the shared edition. */
  onAddress?: (address: SharedGptAddress) => void
}

export type GptOptions<F = object> = LocalGptOptions<F> | SharedGptOptions<F>

/** `background` checked, defaulted and frozen (docs/jobs.md). */
export interface BackgroundSettings {
  readonly after: number
  readonly keep: number
  readonly maxJobs: number
  readonly poll: number
  readonly heartbeat: number
  readonly rateMax: number
  /** With `share`: how long a job outlives its process's last sign of life before it reads as failed. */
  readonly lease: number
}

/** Settings of the `idempotency` option. */
export interface IdempotencySettings {
  /** Milliseconds an answer is kept from its act's end. */
  readonly keep: number
  /** Keys an address holds at once (running or kept), in this process or, with `share`, in Redis. */
  readonly maxKeys: number
  /** Bytes of kept answers an address holds at once, in this process or, with `share`, in Redis. */
  readonly maxBytes: number
  /** With `share`: milliseconds a running act's claim outlives the last sign of life of its process. */
  readonly lease: number
}

/** Options checked, defaulted and frozen: everything per request reads only this. */
export interface Settings {
  readonly path: string
  readonly content: Content
  /** The option's act. The core calls it as src/jobs/ wraps it (`CoreAct`, src/address/act.ts), with a context. */
  readonly act: Act
  readonly type: string | undefined
  /** As declared: an edition's prompt gives the title where this is undefined (metadata.ts titleOf). */
  readonly title: string | undefined
  readonly annotations: Annotations | undefined
  readonly icons: readonly Icon[] | undefined
  /** The result form, compiled: every result checked against it before it is sent. */
  readonly result: ResultForm | undefined
  readonly bodyLimit: number
  readonly bodyTimeout: number
  readonly maxDepth: number
  readonly lint: false | { readonly require: readonly string[] }
  /** Lint's word on each edition's form, which may refuse it by throwing (src/address/review.ts); undefined with `lint: false`. */
  readonly review: ((form: JsonObject) => readonly RuntimeVerdict[]) | undefined
  readonly rateLimit: RateLimitPluginOptions | false
  readonly html: boolean | ((address: AddressView) => string | HtmlPage)
  readonly openapi: false | { readonly tags: readonly string[] }
  readonly ifMatch: boolean
  readonly explain: boolean
  readonly actTimeout: number | undefined
  readonly onAddress: ((address: GptAddress | SharedGptAddress) => void) | undefined
  readonly share: ShareSettings | undefined
  readonly limits: Limits
  /** Resolved when the host is ready (src/links/host.ts). */
  readonly links: LinkSet | undefined
  readonly background: BackgroundSettings | undefined
  readonly idempotency: IdempotencySettings | undefined
}

/**
 * The options as this module resolves them. The entry completes them into Settings in the same
 * pass, before anything connects: lint's review (src/address/review.ts), `background` and
 * `idempotency` (each checked by its room, src/jobs/settings.ts and src/idempotency/option.ts).
 */
export type ResolvedOptions = Omit<Settings, 'review' | 'background' | 'idempotency'> & {
  readonly background: unknown
  readonly idempotency: unknown
}

/** draft §5.2 (1), §7.4: a body that stops arriving must not hold its connection open. */
export const DEFAULT_BODY_TIMEOUT = 10_000
/** draft §7.4: the arrival is served to anyone, so limit rates by default. */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimitPluginOptions> = Object.freeze({ max: 60, timeWindow: 60_000 })

type Invalid = (detail: string) => Error

/**
 * One option of an address: the type and default its row in the README's options table shows
 * (test/address/options.test.ts holds the table to them), the value it takes when left out, and
 * its check, which throws a named error. An option resolved by a room of its own (the content,
 * `limits`, `share`, `links`, `background`) has no check here.
 */
interface OptionRow {
  readonly type: string
  readonly shown: string
  readonly value?: unknown
  readonly check?: (value: unknown, invalid: Invalid) => void
}

type Check = NonNullable<OptionRow['check']>

/** A check that `test` holds, or `detail` is the error. */
function must (test: (value: unknown) => boolean, detail: string): Check {
  return (value, invalid) => { if (!test(value)) throw invalid(detail) }
}

/** A check of an option that has no default: left out, it is not checked. */
function optional (check: Check): Check {
  return (value, invalid) => { if (value !== undefined) check(value, invalid) }
}

const delay = (name: string): Check => must(isDelay, `"${name}" must be a positive integer of milliseconds, at most ${MAX_DELAY}`)
const isBoolean = (value: unknown): boolean => typeof value === 'boolean'

/**
 * Every option an address takes, in the order they are checked (so that of two wrong options, the
 * same one is named each time), and none other: the type below makes the table and the options'
 * interface name the same members.
 */
export const OPTIONS: { readonly [Name in keyof Required<LocalGptOptions>]: OptionRow } = Object.freeze({
  form: { type: 'JSON Schema 2020-12 object', shown: 'required' },
  prompt: { type: 'string', shown: "`''`" },
  messages: { type: '`{ role: string, content: string }[]`', shown: '`[]`' },
  limits: { type: '`{ formBytes?, formDepth?, promptBytes?, messages?, messagesBytes? }`', shown: '`{ formBytes: 262144, formDepth: 256, promptBytes: 262144, messages: 1000, messagesBytes: 1048576 }`' },
  act: { type: '`(body, request, reply) => result`', shown: 'required', check: must((value) => typeof value === 'function', '"act" must be a function') },
  type: { type: 'string', shown: 'none', check: optional(must((value) => typeof value === 'string' && FIELD_VALUE.test(value), '"type" must be a non-empty header field value (visible ASCII)')) },
  title: { type: 'string', shown: 'the first sentence of `prompt`', check: checkTitle },
  annotations: { type: '`{ readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint? }`', shown: 'none', check: checkAnnotations },
  icons: { type: '`{ src, mimeType?, sizes?, theme? }[]`', shown: 'none', check: checkIcons },
  result: { type: 'JSON Schema 2020-12 object', shown: 'none' },
  bodyLimit: { type: 'positive integer (bytes)', shown: '`65536`', value: DEFAULT_BODY_LIMIT, check: must(isPositiveInteger, '"bodyLimit" must be a positive integer number of bytes') },
  bodyTimeout: { type: 'positive integer (ms)', shown: '`10000`', value: DEFAULT_BODY_TIMEOUT, check: delay('bodyTimeout') },
  maxDepth: { type: 'positive integer', shown: "`64`, or the form's own bound", value: DEFAULT_MAX_DEPTH, check: must(isPositiveInteger, '"maxDepth" must be a positive integer') },
  lint: { type: 'boolean, or `{ require: decoder[] }`', shown: '`true`', value: true, check: must((value) => isBoolean(value) || isLintRequirement(value), '"lint" must be a boolean or { require: [decoder names] }') },
  rateLimit: { type: '`@fastify/rate-limit` options, or `false`', shown: '`{ max: 60, timeWindow: 60000 }`', value: DEFAULT_RATE_LIMIT, check: checkRateLimit },
  openapi: { type: 'boolean, or `{ tags: string[] }`', shown: '`false`', value: false, check: must((value) => isBoolean(value) || isTags(value), '"openapi" must be a boolean or { tags: [strings] }') },
  html: { type: 'boolean, or `(address) => string \\| { body, headers }`', shown: '`true`', value: true, check: must((value) => isBoolean(value) || typeof value === 'function', '"html" must be a boolean or a function') },
  ifMatch: { type: 'boolean', shown: '`false`', value: false, check: must(isBoolean, '"ifMatch" must be a boolean') },
  explain: { type: 'boolean', shown: '`false`', value: false, check: must(isBoolean, '"explain" must be a boolean') },
  actTimeout: { type: 'positive integer (ms)', shown: 'none', check: optional(delay('actTimeout')) },
  onAddress: { type: '`(address) => void`', shown: 'none', check: optional(must((value) => typeof value === 'function', '"onAddress" must be a function')) },
  share: { type: '`{ redis, key? }`', shown: 'none' },
  links: { type: '`(path \\| { href, p?, rel? })[]`', shown: 'none' },
  background: { type: '`{ after?, keep?, maxJobs?, poll?, heartbeat?, rateMax?, lease? }`', shown: 'none' },
  idempotency: { type: 'boolean, or `{ keep?, maxKeys?, maxBytes?, lease? }`', shown: '`false`' }
})

/** Fastify's own options of `register`, which reach the plugin beside its own. */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers']
const KNOWN = new Set([...Object.keys(OPTIONS), ...REGISTER_OPTIONS])

/** The options checked and defaulted, in one pass (ResolvedOptions). */
export function resolveOptions (options: Record<string, unknown>, path: string): ResolvedOptions {
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  for (const name of Object.keys(options)) {
    if (!KNOWN.has(name)) throw new GPT_ERR_OPTION_UNKNOWN(path, `"${name}"`)
  }
  if (options['form'] === undefined) throw invalid('"form" must be a JSON Schema object')
  const limits = resolveLimits(options['limits'], path)
  const content = resolveContent(options, undefined, path, limits)
  const given: Record<string, unknown> = {}
  for (const [name, row] of Object.entries(OPTIONS) as Array<[string, OptionRow]>) {
    const value = options[name] === undefined ? row.value : options[name]
    row.check?.(value, invalid)
    given[name] = value
  }
  const { lint, rateLimit, openapi, share } = given as { lint: boolean | { require: readonly string[] }, rateLimit: RateLimitPluginOptions | false, openapi: boolean | { tags: readonly string[] }, share: unknown }

  const settings: ResolvedOptions = {
    path,
    content,
    act: given['act'] as Act,
    type: given['type'] as string | undefined,
    title: given['title'] as string | undefined,
    annotations: frozen<Annotations>(given['annotations'], path, '/annotations'),
    icons: frozen<readonly Icon[]>(given['icons'], path, '/icons'),
    result: resolveResult(options['result'], path, limits),
    bodyLimit: given['bodyLimit'] as number,
    bodyTimeout: given['bodyTimeout'] as number,
    maxDepth: given['maxDepth'] as number,
    lint: lint === false ? false : { require: Object.freeze(lint === true ? [] : [...lint.require]) },
    rateLimit: rateLimit === false ? false : { ...DEFAULT_RATE_LIMIT, ...rateLimit },
    html: given['html'] as Settings['html'],
    openapi: openapi === false ? false : Object.freeze({ tags: Object.freeze(openapi === true ? [] : [...openapi.tags]) }),
    ifMatch: given['ifMatch'] as boolean,
    explain: given['explain'] as boolean,
    actTimeout: given['actTimeout'] as number | undefined,
    onAddress: given['onAddress'] as Settings['onAddress'],
    share: share === undefined ? undefined : resolveShare(share, path),
    limits,
    links: options['links'] === undefined ? undefined : new LinkSet(resolveLinks(options['links'], path, '/links', path), path),
    background: options['background'],
    idempotency: options['idempotency']
  }
  return settings
}

/**
 * Checks and freezes p, m and s, at registration and on every update. Members left out keep the
 * value they have in `base` (or their defaults).
 */
export function resolveContent (change: Record<string, unknown>, base: Content | undefined, path: string, limits: Limits): Content {
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  const { form = base?.form, prompt = base?.prompt ?? '', messages = base?.messages ?? [] } = change
  if (form === null || typeof form !== 'object' || Array.isArray(form)) throw invalid('"form" must be a JSON Schema object')
  if (typeof prompt !== 'string') throw invalid('"prompt" must be a string')
  if (!Array.isArray(messages)) throw invalid('"messages" must be an array of { role, content } with string values and no other members')
  // The limits first, each in time bounded by the limit it checks (src/limits.ts).
  checkText(prompt, messages, limits, path)
  if (!messages.every((message) => FROZEN_MESSAGES.has(message) || isMessage(message))) {
    throw invalid('"messages" must be an array of { role, content } with string values and no other members')
  }
  checkMessages(messages, limits, path)
  return Object.freeze({
    prompt,
    messages: freezeMessages(messages, path),
    form: form === base?.form ? base.form : freezeJson(form, path, '', { bytes: limits.formBytes, depth: limits.formDepth }) as JsonObject
  })
}

// Every message checked and frozen here: one met again (kept from the content it was taken from)
// is used as it is, so appending to a long `m` costs the new message, not the whole list again.
const FROZEN_MESSAGES = new WeakSet<object>()

function freezeMessages (messages: readonly Message[], path: string): readonly Message[] {
  const frozen: Message[] = []
  for (let i = 0; i < messages.length; i++) {
    if (!(i in messages)) throw new GPT_ERR_FORM_NOT_JSON(path, `/${i} is a hole in "messages"`)
    let message = messages[i]!
    if (!FROZEN_MESSAGES.has(message)) {
      message = freezeJson(message, path, `/${i}`) as unknown as Message
      FROZEN_MESSAGES.add(message)
    }
    frozen.push(message)
  }
  return Object.freeze(frozen)
}

function isMessage (value: unknown): value is Message {
  if (value === null || typeof value !== 'object') return false
  const keys = Object.keys(value)
  return keys.length === 2 && typeof (value as Message).role === 'string' && typeof (value as Message).content === 'string'
}

function isLintRequirement (value: unknown): value is { require: readonly string[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const { require, ...rest } = value as { require?: unknown }
  return Object.keys(rest).length === 0 && Array.isArray(require) && require.every((name) => typeof name === 'string')
}

function isTags (value: unknown): value is { tags: readonly string[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const { tags, ...rest } = value as { tags?: unknown }
  return Object.keys(rest).length === 0 && Array.isArray(tags) && tags.every((tag) => typeof tag === 'string')
}

// A duration as @fastify/rate-limit reads it ('1 minute', '30s', '500'): anything else is NaN there.
const DURATION = /^ *\d*\.?\d+ *(?:ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|y|yrs?|years?)? *$/i

/**
 * The rate limit's own numbers, which @fastify/rate-limit would take as they come (`max: 'ten'`
 * limits nothing): a count or a function of the request, and a window of milliseconds, a duration
 * such as '1 minute', or a function.
 */
function checkRateLimit (value: unknown, invalid: Invalid): void {
  if (value === false) return
  if (value === null || typeof value !== 'object') throw invalid('"rateLimit" must be @fastify/rate-limit options or false')
  const { max, timeWindow } = value as Record<string, unknown>
  if (max !== undefined && typeof max !== 'function' && !(typeof max === 'number' && Number.isSafeInteger(max) && max >= 0)) {
    throw invalid('"rateLimit.max" must be a non-negative integer or a function')
  }
  if (timeWindow !== undefined && typeof timeWindow !== 'function' && !isPositiveInteger(timeWindow) &&
    !(typeof timeWindow === 'string' && DURATION.test(timeWindow))) {
    throw invalid('"rateLimit.timeWindow" must be a positive integer of milliseconds, a duration such as \'1 minute\', or a function')
  }
}

function isPositiveInteger (value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function isDelay (value: unknown): value is number {
  return isPositiveInteger(value) && value <= MAX_DELAY
}
