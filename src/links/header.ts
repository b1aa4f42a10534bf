import { GPT_ERR_LINK_HEADER_TOO_LARGE } from '../errors.ts'

/**
 * Most bytes of the `Link` field value an address sends: Node's fetch (undici) and node:http refuse
 * a response whose header fields together pass 16 KiB, and the host's other headers need room.
 */
export const MAX_LINK_HEADER = 8192

/** What of a link goes in the field: its `p` never does. */
interface Relation {
  readonly href: string
  readonly rel?: string | undefined
}

/**
 * The `Link` header field mirroring `l` (RFC 8288 §3): `<href>; rel="…"` for each link, in order.
 * A path is a URI reference, resolved against the URL that was requested (RFC 8288 §3.1). An
 * href is checked to hold no `>` or space, so it needs no escaping.
 */
export function linkHeader (links: readonly Relation[]): string {
  return links.map((link) => `<${link.href}>; rel="${link.rel ?? 'related'}"`).join(', ')
}

/**
 * The field `carried` (what the reply already has, or '') followed by `header`, or a named error
 * when that is larger than MAX_LINK_HEADER. `at` is where the links were given (`/links`).
 */
export function boundLinkHeader (carried: string, header: string, path: string, at: string): string {
  const field = carried === '' ? header : `${carried}, ${header}`
  // Node writes a header's characters as latin1: one byte each.
  if (field.length <= MAX_LINK_HEADER) return field
  const what = carried === ''
    ? 'the Link field of these links'
    : `with the ${carried.length} bytes of Link field the reply already carries, the field`
  throw new GPT_ERR_LINK_HEADER_TOO_LARGE(path, `${at}: ${what} would be ${field.length} bytes, more than ${MAX_LINK_HEADER} ` +
    '(Node\'s fetch and http refuse a response whose headers together pass 16 KiB, and the other headers need room)')
}
