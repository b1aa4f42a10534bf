import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import { addVary, CODING, FIELD_CONTENT, notModified, strongTag, TOKEN } from '../fields.ts'
import { customPolicy, renderPage } from '../page/html.ts'
import type { RuntimeVerdict } from '../lint/types.ts'
import type { Link } from '../links/option.ts'
import type { Content } from '../types.ts'
import { prefers } from './negotiate.ts'
import { headerNames, removeHeader } from './fastify-internals.ts'
import { openapiRoute } from './openapi.ts'
import type { Settings } from './options.ts'
import { titleOf } from '../sentence.ts'

/** One representation of the arrival as it goes on the wire: bytes, entity tag and headers. */
export interface Representation {
  readonly body: Buffer
  readonly etag: string
  readonly headers: Readonly<Record<string, string>>
}

export interface Arrival {
  readonly json: Representation
  /** Undefined with `html: false`; the default page is built when first read (see Serialized). */
  readonly html: Representation | undefined
}

/**
 * Built once per edition, at registration or update (draft §7.4: a precomputed representation).
 * `runtimes`: lint's word on the form, when the edition already has it (src/address/address.ts).
 * `catalog`: the Link field value naming the host's API catalog, where it serves one. The default
 * page waits for its first reader (see Serialized); the JSON and a host's own page are built here.
 */
export function buildArrival (content: Content, settings: Settings, runtimes = settings.review?.(content.form) ?? [], catalog?: string): Arrival {
  // Vary is not among them: send() adds Accept to the host's own Vary (CORS's Origin, say).
  const common: Record<string, string> = {}
  if (settings.type !== undefined) common['gpt-type'] = settings.type // draft §3.2: advisory only

  // draft §3.2: "An address MAY include additional members": `l` names other addresses, and the
  // Link header mirrors it (docs/links.md). RFC 9727 §3: the host's API catalog follows them.
  const links = settings.links?.named
  const names = links !== undefined && links.member.length > 0 ? links : undefined
  const link = [names?.header, catalog].filter((field) => field !== undefined).join(', ')
  if (link !== '') common['link'] = link
  const named = names === undefined ? {} : { l: names.member }
  // draft §3.2: a JSON object with p, m and s; s is the very object the validator was compiled from.
  const json = Buffer.from(JSON.stringify({ p: content.prompt, m: content.messages, s: content.form, ...named }))
  const page = (): Representation => htmlRepresentation(content, settings, common, runtimes, links?.member)
  // A host's page function may refuse what it is given (GPT_ERR_OPTION_INVALID): it is asked at
  // once, so that the update it refuses fails.
  return new Serialized(representation(json, { ...common, 'content-type': 'application/json; charset=utf-8' }),
    settings.html === false ? undefined : typeof settings.html === 'function' ? page() : page)
}

/**
 * An arrival whose default page is rendered on the first request that prefers it, then kept. The
 * page repeats every message (escaped) and renders the form's inputs: under a burst of updates
 * (appends to `m`) most editions are replaced before anyone asks for their page, and it would be
 * rendered for nothing. The page is a function of the edition's frozen content and of its links
 * as they were when it was built, so it is the same bytes whenever it is rendered.
 */
class Serialized implements Arrival {
  readonly json: Representation
  #html: Representation | (() => Representation) | undefined

  constructor (json: Representation, html: Representation | (() => Representation) | undefined) {
    this.json = json
    this.#html = html
    Object.freeze(this)
  }

  get html (): Representation | undefined {
    if (typeof this.#html === 'function') this.#html = this.#html()
    return this.#html
  }
}

function htmlRepresentation (content: Content, settings: Settings, common: Record<string, string>,
  runtimes: readonly RuntimeVerdict[], links?: readonly Link[]): Representation {
  const view = { path: settings.path, title: titleOf(settings.title, content.prompt), ...content }
  if (typeof settings.html === 'function') {
    const page = customPage(settings.html(view), settings.path)
    return representation(Buffer.from(page.body), {
      ...common,
      'content-type': 'text/html; charset=utf-8',
      // Its own policy, as the default page has: the page's inline scripts and styles by hash,
      // and what it loads from its own origin. A host's (@fastify/helmet's) would block them.
      'content-security-policy': customPolicy(page.body),
      'x-content-type-options': 'nosniff',
      ...page.headers
    })
  }
  const page = renderPage(view, runtimes, links)
  return representation(Buffer.from(page.html), {
    ...common,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': page.csp,
    'x-content-type-options': 'nosniff'
  })
}

// Headers that describe the bytes as sent, which the address and Fastify set.
const OWN_HEADERS = new Set(['etag', 'vary', 'content-length', 'content-encoding', 'transfer-encoding'])

/** What a custom `html` function returned, checked: a string, or `{ body, headers }`. */
function customPage (page: unknown, path: string): { body: string, headers: Record<string, string> } {
  if (typeof page === 'string') return { body: page, headers: {} }
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, `"html" returned ${detail}`)
  if (page === null || typeof page !== 'object') throw invalid('neither a string nor { body, headers }')
  const { body, headers = {}, ...rest } = page as { body?: unknown, headers?: unknown }
  if (typeof body !== 'string' || Object.keys(rest).length > 0) throw invalid('an object other than { body: string, headers? }')
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) throw invalid('headers that are not an object of strings')
  const checked: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || typeof value !== 'string' || !FIELD_CONTENT.test(value)) throw invalid(`a header that is not a valid field: ${JSON.stringify(name)}`)
    if (OWN_HEADERS.has(name.toLowerCase())) throw invalid(`the header ${name}, which the address sets`)
    checked[name.toLowerCase()] = value
  }
  return { body, headers: checked }
}

/** A strong entity tag: the hash of the bytes (Appendix B, "Form Change"). */
function representation (body: Buffer, headers: Record<string, string>): Representation {
  const etag = strongTag(body)
  return { body, etag, headers: { ...headers, etag } }
}

const OFFERED = ['application/json', 'text/html']

/** What GET reads of its address: the edition it serves now (an Address, without importing it). */
export interface Serving {
  readonly current: { readonly arrival: Arrival }
}

/** The address's GET (and the HEAD Fastify makes of it): the arrival, its tag put after the host's onSend hooks. */
export function installArrival (instance: FastifyInstance, address: Serving, settings: Settings): void {
  // draft §3.2, RFC 9110 §8.8.3: a host's compression runs in its route onSend hooks, which its
  // onRoute hook adds; this one, added below the host's, puts the arrival's tag after them.
  instance.addHook('onRoute', (route) => {
    // (last, and once: the HEAD route Fastify makes from the GET one comes here with its hooks)
    if (route.method === 'GET' || route.method === 'HEAD') route.onSend = [...[route.onSend ?? []].flat().filter((hook) => hook !== codedTag), codedTag]
  })
  const { schema, config } = openapiRoute(settings, 'arrival')
  instance.get('/', { ...(schema === undefined ? {} : { schema }), config }, arrivalHandler(address))
}

/** GET (and so HEAD): the same bytes to every client, whatever it did before (draft §3.1, §3.2). */
export function arrivalHandler (address: Serving): RouteHandlerMethod {
  return (request, reply) => {
    const arrival = address.current.arrival // one read: one edition
    // draft §3.3: no Accept, or one that does not prefer text/html, gets the JSON; never a 406.
    // The page is read only when it is to be sent: it is rendered when first read.
    const html = prefers(request, OFFERED, 'text/html') ? arrival.html : undefined
    return send(request, reply, html ?? arrival.json)
  }
}

function send (request: FastifyRequest, reply: FastifyReply, representation: Representation): FastifyReply {
  reply.headers(representation.headers)
  addVary(reply)
  const held = notModified(request.headers['if-none-match'], representation.etag)
  return held === undefined ? reply.send(representation.body) : reply.code(304).header('etag', held).send()
}

/**
 * RFC 9110 §8.8.3: representations in different content-codings must not share a strong entity
 * tag. A host's compression (@fastify/compress) encodes the arrival after its handler, so this
 * onSend runs after the host's (see src/index.ts) and gives a coded arrival the tag `"<tag>-<coding>"`
 * (a coding it cannot name: a weak tag). If-None-Match and If-Match accept the tag in any coding:
 * each names the same arrival.
 */
export function codedTag (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  quiet(reply)
  const coding = reply.getHeader('content-encoding')
  const etag = reply.getHeader('etag')
  if (coding !== undefined && typeof etag === 'string' && etag.startsWith('"')) {
    const name = String(coding).trim().toLowerCase()
    if (name !== '' && name !== 'identity') reply.header('etag', CODING.test(name) ? `${etag.slice(0, -1)}-${name}"` : `W/${etag}`)
  }
  done(null, payload)
}

// draft §3.2 and §5.3: a limit the host applies to every route adds its headers (x-ratelimit-*, or
// the ratelimit-* of the IETF drafts, ratelimit-policy included) to the address's responses too;
// they would make the arrival vary with prior contact and tell rejected bodies apart.
const RATE_LIMIT_HEADER = /^(?:x-)?ratelimit-/

/** Takes a host's rate-limit headers off an address's response (run by each route's last onSend). */
export function quiet (reply: FastifyReply): void {
  for (const name of headerNames(reply)) {
    // (the first letter first: most names are content-type, etag, vary and the like)
    const first = name.charCodeAt(0) // lower case: Fastify and Node keep names so
    if ((first === 0x72 || first === 0x78) && RATE_LIMIT_HEADER.test(name)) removeHeader(reply, name)
  }
}
