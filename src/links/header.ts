import type { Link } from './option.ts'

/**
 * The `Link` header field mirroring `l` (RFC 8288 §3): `<href>; rel="…"` for each link, in order.
 * A path is a URI reference, resolved against the URL that was requested (RFC 8288 §3.1). An
 * href is checked to hold no `>` or space, so it needs no escaping.
 */
export function linkHeader (links: readonly Link[]): string {
  return links.map((link) => `<${link.href}>; rel="${link.rel ?? 'related'}"`).join(', ')
}
