// The API catalog as a linkset (RFC 9264 §4.2, application/linkset+json): the catalog's own
// context object, whose `item` links are the host's addresses (RFC 9727 §3.1, Appendix A.2), then
// one context object for each address, with what describes it (RFC 8631's service-desc and
// service-doc, RFC 9727 Appendix A.1). Built whole when the host is ready, each address's part
// again when its title changes; a GET only sends the bytes (docs/catalog.md).
import { strongTag } from '../fields.ts'
import { titleOf } from '../sentence.ts'

/** What the catalog reads of an address's record on its host (src/hosts.ts, entered by src/index.ts). */
export interface Listed {
  readonly path: string
  readonly address: {
    readonly prompt: string
    /** Calls `listener` after each edition the address serves. */
    watch (listener: () => void): void
  }
  /** The address's settings: its declared `title`; `html: false` serves no page, `openapi: false` keeps it out of the OpenAPI document. */
  readonly settings: { readonly title: string | undefined, readonly html: unknown, readonly openapi: unknown }
}

/** Where the catalog's links point, from its options. */
export interface Where {
  /** Prefixed to every path (`https://api.example.com`), or '' for path references. */
  readonly origin: string
  /** The catalog's own path. */
  readonly self: string
  /** The path of the host's OpenAPI document, if it has one. */
  readonly openapi: string | undefined
  /** The path of fastify-gpt/mcp's endpoint, if the host serves one. */
  readonly mcp: string | undefined
}

/** The document as it goes on the wire. */
export interface Served {
  readonly body: Buffer
  /** A weak tag: a host's compression sends other bytes of the same document under it (RFC 9110 §8.8.1). */
  readonly etag: string
}

/** The registered type of an OpenAPI document in JSON. */
export const OPENAPI_TYPE = 'application/vnd.oai.openapi+json'

/** The title of fastify-gpt/mcp's endpoint, an item of the catalog. */
export const MCP_TITLE = 'The addresses of this host as MCP tools (Streamable HTTP)'

export class Linkset {
  /** Read once by each GET: one document, old or new. */
  served: Served
  readonly #where: Where
  #items: string[] = []
  #anchors: string[] = []

  constructor (where: Where) {
    this.#where = where
    this.served = this.#build()
  }

  /** Lists `entries` (in the order they registered), then follows each one's title as its editions change it. */
  list (entries: readonly Listed[]): void {
    this.#items = entries.map((entry) => this.#item(entry))
    this.#anchors = entries.map((entry) => this.#anchor(entry))
    this.served = this.#build()
    entries.forEach((entry, at) => {
      const { address } = entry
      let prompt = address.prompt
      const declared = entry.settings.title
      let title = titleOf(declared, address.prompt)
      address.watch(() => {
        // Only the prompt says anything here: an edition changing the messages or the form (an
        // append, most often) costs one comparison.
        if (address.prompt === prompt) return
        prompt = address.prompt
        const now = titleOf(declared, address.prompt)
        if (now === title) return
        title = now
        this.#items[at] = this.#item(entry)
        this.#anchors[at] = this.#anchor(entry)
        this.served = this.#build()
      })
    })
  }

  #href (path: string): string {
    return `${this.#where.origin}${encodeURI(path)}`
  }

  /** The address as an item of the catalog (RFC 9727 §3.1, RFC 6573). */
  #item (entry: Listed): string {
    const title = titleOf(entry.settings.title, entry.address.prompt)
    return JSON.stringify({ href: this.#href(entry.path), ...(title === undefined ? {} : { title }) })
  }

  /** The address's own context object: its arrival describes it to machines, its page to people. */
  #anchor (entry: Listed): string {
    const href = this.#href(entry.path)
    const title = titleOf(entry.settings.title, entry.address.prompt)
    const { openapi } = this.#where
    const described = [
      { href, type: 'application/json', ...(title === undefined ? {} : { title }) },
      ...(openapi === undefined || entry.settings.openapi === false ? [] : [{ href: this.#href(openapi), type: OPENAPI_TYPE }])
    ]
    const page = entry.settings.html === false ? {} : { 'service-doc': [{ href, type: 'text/html' }] }
    return JSON.stringify({ anchor: href, 'service-desc': described, ...page })
  }

  #build (): Served {
    const { mcp, self } = this.#where
    const items = mcp === undefined ? this.#items : [...this.#items, JSON.stringify({ href: this.#href(mcp), title: MCP_TITLE })]
    // RFC 9264 §4.2.2: a context object holds a member for each relation it has; with no address
    // and no MCP endpoint the catalog has none, and the linkset is empty.
    const catalog = items.length === 0 ? [] : [`{"anchor":${JSON.stringify(this.#href(self))},"item":[${items.join(',')}]}`]
    const body = Buffer.from(`{"linkset":[${[...catalog, ...this.#anchors].join(',')}]}`)
    return Object.freeze({ body, etag: `W/${strongTag(body)}` })
  }
}
