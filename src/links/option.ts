import { GPT_ERR_LINK_INVALID } from '../errors.ts'
import { boundLinkHeader, linkHeader } from './header.ts'

// What an address may say of the addresses it names (Appendix B, "Composition"): each link is a
// path on this host, whose description the plugin derives from that address's own prompt, or an
// http(s) URL elsewhere, which the author may describe. Never a form: the actor reads the target's
// `s` at the moment of contact (Abstract), and the target enforces it (§5.2 (3)).

/** A link as the author writes it: `'/poll'`, or `{ href, p?, rel? }`. */
export type LinkOption = string | {
  /** A path on this host (`/poll`), or an http(s) URL on another. */
  readonly href: string
  /** What the target is: only for a URL on another host; a path's is read from its prompt. */
  readonly p?: string
  /** The relation in the `Link` header (RFC 8288), e.g. `monitor`; default `related`. */
  readonly rel?: string
}

/** One member of `l`, as it goes on the wire. */
export interface Link {
  readonly href: string
  readonly p?: string
  readonly rel?: string
}

/** A checked link: `local` ones name a path on this host. */
export interface Target {
  readonly href: string
  readonly local: boolean
  readonly p: string | undefined
  readonly rel: string | undefined
  /** Where it was given, as a JSON Pointer (`/links/1`). */
  readonly at: string
}

/** Most links one arrival or result names: an actor reads each before choosing. */
export const MAX_LINKS = 100
/** Most characters of a `p` the author writes for a link to another host. */
export const MAX_LINK_TEXT = 1000
const MAX_HREF = 2048

// RFC 8288 §3.3: a registered relation type is a lower-case token.
const REL = /^[a-z][a-z0-9.-]*$/
const BASE = 'http://base.invalid'

/**
 * Checks `links` (an option, or what an act names with its result) and freezes it. `self`, when
 * given, is the path of the address naming them: an arrival naming itself says nothing.
 */
export function resolveLinks (value: unknown, path: string, pointer: string, self?: string): readonly Target[] {
  const invalid = (at: string, detail: string): Error => new GPT_ERR_LINK_INVALID(path, `${at}: ${detail}`)
  if (!Array.isArray(value)) throw invalid(pointer, 'must be an array of paths on this host or { href, p?, rel? }')
  if (value.length > MAX_LINKS) throw invalid(pointer, `names ${value.length} addresses, more than ${MAX_LINKS}`)
  const seen = new Set<string>()
  const targets: Target[] = []
  for (let i = 0; i < value.length; i++) {
    const at = `${pointer}/${i}`
    const target = checkLink(value[i], at, invalid)
    if (seen.has(target.href)) throw invalid(at, `names ${target.href} a second time`)
    if (target.local && target.href === self) throw invalid(at, `names the address itself (${self})`)
    seen.add(target.href)
    targets.push(target)
  }
  // Only href and rel go in the field, so its size is fixed here, whatever the targets' prompts say.
  boundLinkHeader('', linkHeader(targets), path, pointer)
  return Object.freeze(targets)
}

function checkLink (link: unknown, at: string, invalid: (at: string, detail: string) => Error): Target {
  const written = typeof link === 'string' ? { href: link } : link
  if (written === null || typeof written !== 'object' || Array.isArray(written)) throw invalid(at, 'must be a path or { href, p?, rel? }')
  const { href, p, rel, ...rest } = written as Record<string, unknown>
  const unknown = Object.keys(rest)[0]
  // draft Abstract, §5.2 (3): a copy of the target's form would be a second statement of what it accepts.
  if (unknown === 's') throw invalid(at, 'carries "s": a link never copies its target\'s form, which the actor reads at the moment of contact')
  if (unknown !== undefined) throw invalid(`${at}/${unknown}`, 'is not a member of a link (href, p, rel)')
  if (typeof href !== 'string' || href === '') throw invalid(`${at}/href`, 'must be a non-empty string')
  if (href.length > MAX_HREF) throw invalid(`${at}/href`, `is longer than ${MAX_HREF} characters`)
  if (rel !== undefined && (typeof rel !== 'string' || !REL.test(rel))) throw invalid(`${at}/rel`, 'must be a lower-case relation type (RFC 8288 §3.3), e.g. "related"')
  const local = href.startsWith('/') && !href.startsWith('//')
  if (local) {
    let parsed: URL
    try {
      parsed = new URL(href, BASE)
    } catch {
      throw invalid(`${at}/href`, `${JSON.stringify(href)} is not a path`)
    }
    if (parsed.search !== '' || parsed.hash !== '' || href.includes('?') || href.includes('#')) {
      throw invalid(`${at}/href`, `${JSON.stringify(href)} has a query or fragment: an address is a path (draft §3.1: no query parameter is needed)`)
    }
    if (parsed.pathname !== href) throw invalid(`${at}/href`, `${JSON.stringify(href)} is not a path as written on the wire (${parsed.pathname})`)
    // draft §7.3: a description written apart from the target can drift from it.
    if (p !== undefined) throw invalid(`${at}/p`, `is derived from the prompt of the address at ${href}; a link on this host takes no "p"`)
    return Object.freeze({ href, local, p: undefined, rel: rel as string | undefined, at })
  }
  let url: URL
  try {
    url = new URL(href)
  } catch {
    throw invalid(`${at}/href`, `${JSON.stringify(href)} is neither a path on this host (starting with /) nor a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`${at}/href`, `${JSON.stringify(href)} is not an http(s) URL: an address is one (draft §2)`)
  if (url.username !== '' || url.password !== '') throw invalid(`${at}/href`, 'carries credentials: every actor reading the arrival would read them')
  if (url.hash !== '') throw invalid(`${at}/href`, `${JSON.stringify(href)} has a fragment, which is never sent to the address`)
  if (url.href !== href) throw invalid(`${at}/href`, `${JSON.stringify(href)} is not written as a URL is on the wire (${url.href})`)
  if (p !== undefined && (typeof p !== 'string' || p.length > MAX_LINK_TEXT)) throw invalid(`${at}/p`, `must be a string of at most ${MAX_LINK_TEXT} characters`)
  return Object.freeze({ href, local, p: p === '' ? undefined : p as string | undefined, rel: rel as string | undefined, at })
}
