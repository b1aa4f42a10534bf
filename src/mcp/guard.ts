// DNS rebinding (MCP Streamable HTTP, "Security Warning"): a web page whose name an attacker
// points at 127.0.0.1 could call a local server's tools from a browser. A request that came in on
// a loopback address must name a loopback host, and any Origin it carries must be one too; one
// that came in elsewhere may carry only the host's own Origin. A host may allow others, or turn
// the check off.

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]']

/** What the check allows: host names (without port), and origins (`scheme://host[:port]`). */
export interface Allowed {
  readonly hosts: readonly string[]
  readonly origins: readonly string[]
  /** Checks every request, not only those on a loopback address. */
  readonly always: boolean
}

export function allowedOf (hosts: readonly string[] | false | undefined, origins: readonly string[] | undefined): Allowed | undefined {
  if (hosts === false) return undefined
  return Object.freeze({ hosts: [...LOOPBACK, ...(hosts ?? [])].map((h) => h.toLowerCase()), origins: origins ?? [], always: hosts !== undefined })
}

const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && (address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.'))

/** Why the request is refused (a 403), or undefined. */
export function rebound (allowed: Allowed | undefined, localAddress: string | undefined, host: string | undefined, origin: string | undefined): string | undefined {
  if (allowed === undefined) return undefined
  // Elsewhere (Streamable HTTP: "validate the Origin header on all incoming connections"), a
  // browser's request must come from the host's own origin, or one the host allows.
  if (!allowed.always && !isLoopback(localAddress)) {
    return origin === undefined || allowed.origins.includes(origin) || sameHost(origin, host) ? undefined : 'Invalid Origin header'
  }
  if (host === undefined || !allowed.hosts.includes(hostName(host))) return 'Invalid Host header'
  if (origin === undefined) return undefined
  if (allowed.origins.includes(origin)) return undefined
  let name: string
  try {
    const url = new URL(origin)
    name = url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : ''
  } catch {
    return 'Invalid Origin header'
  }
  return allowed.hosts.includes(name.toLowerCase()) ? undefined : 'Invalid Origin header'
}

/** Whether `origin` names the host the request reached (its name and port as the Host field has them). */
function sameHost (origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  try {
    return new URL(origin).host === host.toLowerCase()
  } catch {
    return false
  }
}

/** A Host field's name, without its port. */
function hostName (host: string): string {
  const lower = host.toLowerCase()
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1)
  const colon = lower.indexOf(':')
  return colon === -1 ? lower : lower.slice(0, colon)
}
