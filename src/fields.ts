// HTTP field values and entity tags (RFC 9110 §5.5, §8.8.3, §13.1): what the arrival, the
// options and the job addresses each check or compare, in one leaf.
import { createHash } from 'node:crypto'

/** The request header field of an act's key (draft-ietf-httpapi-idempotency-key-header; docs/idempotency.md). */
export const IDEMPOTENCY_KEY = 'idempotency-key'

/** A field name (RFC 9110 §5.1: a token). */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** A field value as a host may write it: visible ASCII, spaces and tabs (RFC 9110 §5.5). */
export const FIELD_CONTENT = /^[\x20-\x7e\t]*$/
/** A field value with nothing to trim: visible ASCII at both ends, spaces and tabs only inside. */
export const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/

/** A strong entity tag for `bytes`: the start of their SHA-256 (Appendix B, "Form Change"). */
export function strongTag (bytes: Buffer | string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`
}

/** A content-coding's name in a coded tag `"<tag>-<coding>"`. */
export const CODING = /^[a-z0-9]+$/

/**
 * Whether an If-None-Match (weak comparison) or If-Match (strong) field value names `etag`
 * (RFC 9110 §8.8.3.2, §13.1.1, §13.1.2), in any content-coding (src/address/arrival.ts codedTag).
 */
export function matches (field: string, etag: string, weak: boolean): boolean {
  return matched(field, etag, weak) !== undefined
}

/** The tag of `field` that names `etag` in some coding, `*`, or undefined. */
function matched (field: string, etag: string, weak: boolean): string | undefined {
  if (field.trim() === '*') return '*'
  const coded = `${etag.slice(0, -1)}-`
  for (const tag of field.split(',')) {
    const trimmed = tag.trim()
    const strong = weak && trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed
    if (strong === etag || (strong.startsWith(coded) && CODING.test(strong.slice(coded.length, -1)) && strong.endsWith('"'))) return strong
  }
  return undefined
}

/**
 * RFC 9110 §13.1.2: the tag a 304 carries where If-None-Match names `etag` (in any coding, weak
 * comparison) or is `*`: the one the client holds (§15.4.5); undefined: send the representation.
 */
export function notModified (field: string | undefined, etag: string): string | undefined {
  if (field === undefined) return undefined
  const named = matched(field, etag, true)
  return named === '*' ? etag : named
}

/**
 * Adds Accept to the Vary of a reply (a Fastify reply) that negotiates on Accept (draft §3.3),
 * never replacing the one the host set (@fastify/cors's Origin, say), and never naming it twice.
 */
export function addVary (reply: { getHeader (name: string): string | string[] | number | undefined, header (name: string, value: string): unknown }): void {
  const host = reply.getHeader('vary')
  if (host === undefined || host === '') {
    reply.header('vary', 'Accept')
    return
  }
  const listed = Array.isArray(host) ? host.join(', ') : String(host)
  const names = listed.split(',').map((name) => name.trim().toLowerCase())
  if (!names.includes('accept') && !names.includes('*')) reply.header('vary', `${listed}, Accept`)
}

/** What a Cache-Control field value says of freshness and sharing (RFC 9111 §5.2.2): undefined members where it says nothing. */
export interface CacheDirectives {
  /** `max-age` in seconds; 0 where `no-cache` or `no-store` says a stored copy is never fresh. */
  readonly maxAge: number | undefined
  readonly private: boolean
}

/** The directives of a Cache-Control field value that say how long and for whom (RFC 9111 §5.2.2.1, .4, .5, .7). */
export function cacheDirectives (field: string | undefined): CacheDirectives {
  let maxAge: number | undefined
  let secret = false
  for (const directive of (field ?? '').toLowerCase().split(',')) {
    const [name = '', value] = directive.trim().split('=', 2)
    if (name === 'no-store' || name === 'no-cache') maxAge = 0
    else if (name === 'private') secret = true
    else if (name === 'max-age' && maxAge !== 0) {
      // RFC 9111 §1.2.2: delta-seconds, quoted or not; one that is neither is no freshness at all.
      const seconds = /^"?(\d{1,10})"?$/.exec(value ?? '')?.[1]
      maxAge = seconds === undefined ? 0 : Number(seconds)
    }
  }
  return { maxAge, private: secret }
}
