// The fastify-gpt addresses of each server, in the order they registered: every encapsulated
// instance of one Fastify app shares its `server`, so one address (its links), the MCP bridge,
// the API catalog and any other room find the others whatever plugin registered them. The plugin
// entry (src/index.ts) enters one record an address; each room reads the members it needs of it.
// Beside them, the one API catalog (RFC 9727) a server may serve, which every arrival names.

/** One address's record: its path, and what the rooms above read of it (its handle, its door...). */
export interface Hosted {
  readonly path: string
}

const servers = new WeakMap<object, Map<string, Hosted>>()

/** Enters an address of the host serving on `server`; the function returned takes it out again (once the address closes). */
export function hostAddress (server: object, hosted: Hosted): () => void {
  let addresses = servers.get(server)
  if (addresses === undefined) {
    addresses = new Map()
    servers.set(server, addresses)
  }
  addresses.set(hosted.path, hosted)
  const entered = addresses
  return () => { if (entered.get(hosted.path) === hosted) entered.delete(hosted.path) }
}

const NONE: ReadonlyMap<string, Hosted> = new Map()

/**
 * The addresses of the host serving on `server`, by path, as the record the entry made (`T`: the
 * members a room reads of it, which the entry's record has; src/index.ts).
 */
export function hostedOn<T extends Hosted> (server: object): ReadonlyMap<string, T> {
  return (servers.get(server) ?? NONE) as ReadonlyMap<string, T>
}

const catalogs = new WeakMap<object, string>()

/**
 * Enters the API catalog of the host serving on `server`, as the Link field value that names it
 * (`</.well-known/api-catalog>; rel="api-catalog"`); it goes with the server.
 */
export function hostCatalog (server: object, link: string): void {
  catalogs.set(server, link)
}

/** The Link field value naming the API catalog of the host serving on `server`, if it serves one. */
export function catalogOn (server: object): string | undefined {
  return catalogs.get(server)
}
