// fastify-gpt/catalog: the host's API catalog at /.well-known/api-catalog (RFC 9727), a linkset
// (RFC 9264) of every fastify-gpt address on the host, wherever it was registered (docs/catalog.md).
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import { notModified } from '../fields.ts'
import { hostCatalog, hostedOn } from '../hosts.ts'
import { Linkset, type Listed } from './linkset.ts'

export interface CatalogOptions {
  /**
   * The origin the catalog's links are absolute under (`https://api.example.com`), as RFC 9264
   * §4.2.2 and §4.2.3 recommend. Default: none, the links are paths on the host.
   */
  origin?: string
  /**
   * The path of the host's OpenAPI document (a GET route, such as @fastify/swagger-ui's
   * `/documentation/json`): linked as a `service-desc` of each address shown in it (the address's
   * `openapi` option). Default: none.
   */
  openapi?: string
  /** The path of fastify-gpt/mcp's endpoint (a POST route, `/mcp`): an item of the catalog. Default: none. */
  mcp?: string
  /** Which of the host's addresses are listed, by path. Default: all. */
  addresses?: (path: string) => boolean
}

/** Where the catalog is served: a well-known URI (RFC 8615, RFC 9727 §2). */
export const CATALOG_PATH = '/.well-known/api-catalog'

/** The profile URI RFC 9727 registers for a linkset that is an API catalog (RFC 9727 §4.2, §7.3). */
export const CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727'

/** RFC 9264 §4.2's media type, with RFC 9727's profile (RFC 9264 §5). */
export const CATALOG_TYPE = `application/linkset+json; profile="${CATALOG_PROFILE}"`

/** The Link field value naming the catalog (RFC 9727 §3): on its own GET and HEAD (§2), and on every arrival of the host. */
export const CATALOG_LINK = `<${CATALOG_PATH}>; rel="api-catalog"`

const KNOWN = new Set(['origin', 'openapi', 'mcp', 'addresses'])
/** A path on this host: one slash first (two would name another host), no space or character a URI never holds. */
const PATH = /^\/(?!\/)[^\s"<>\\^`{|}]*$/

async function plugin (host: FastifyInstance, options: CatalogOptions): Promise<void> {
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(CATALOG_PATH, detail)
  // RFC 8615 §3: a well-known URI is at the root of the host, never under a prefix.
  if (host.prefix !== '') throw invalid(`registered under the prefix ${host.prefix}: register fastify-gpt/catalog outside any prefix`)
  const { origin = '', openapi, mcp, addresses = () => true } = checkOptions(options, invalid)
  const linkset = new Linkset({ origin, self: CATALOG_PATH, openapi, mcp })
  hostCatalog(host.server, CATALOG_LINK)

  host.addHook('onReady', async () => {
    if (openapi !== undefined && !host.hasRoute({ method: 'GET', url: openapi })) throw invalid(`"openapi": no GET route at ${openapi} on this host`)
    if (mcp !== undefined && !host.hasRoute({ method: 'POST', url: mcp })) throw invalid(`"mcp": no POST route at ${mcp} on this host`)
    linkset.list([...hostedOn<Listed>(host.server).values()].filter((entry) => addresses(entry.path)))
  })
  // RFC 9727 §2: GET and HEAD (which sends GET's header fields, RFC 9110 §9.3.2), whatever the
  // host's exposeHeadRoutes.
  host.route({ method: ['GET', 'HEAD'], url: CATALOG_PATH, handler: (request, reply) => send(linkset, request, reply) })
}

/** The bytes built last, with the catalog's type, tag and Link; a 304 to a client that has them. */
function send (linkset: Linkset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { body, etag } = linkset.served // one read: one document
  reply.header('content-type', CATALOG_TYPE).header('link', CATALOG_LINK).header('etag', etag)
  const held = notModified(request.headers['if-none-match'], etag.slice(2))
  return held === undefined ? reply.send(body) : reply.code(304).send()
}

/** The options a JavaScript host may get wrong (a misspelt name, a URL where a path goes): named errors at registration. */
function checkOptions (options: CatalogOptions, invalid: (detail: string) => Error): CatalogOptions {
  for (const name of Object.keys(options)) if (!KNOWN.has(name)) throw invalid(`"${name}" is not an option of fastify-gpt/catalog`)
  const { origin, openapi, mcp, addresses } = options as Record<string, unknown>
  if (origin !== undefined && !isOrigin(origin)) throw invalid('"origin" must be an http(s) origin, scheme and host only: https://api.example.com')
  for (const [name, path] of [['openapi', openapi], ['mcp', mcp]] as const) {
    if (path !== undefined && (typeof path !== 'string' || !PATH.test(path))) throw invalid(`"${name}" must be a path on this host, such as /${name === 'mcp' ? 'mcp' : 'documentation/json'}`)
  }
  if (addresses !== undefined && typeof addresses !== 'function') throw invalid('"addresses" must be a function of a path')
  return options
}

/** An origin written as URL's own serialization of it: no path, query, credentials or trailing slash. */
function isOrigin (value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false
  const url = new URL(value)
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value
}

export const catalog = fp(plugin as FastifyPluginAsync<CatalogOptions>, { fastify: '5.x', name: 'fastify-gpt/catalog' })
export default catalog
