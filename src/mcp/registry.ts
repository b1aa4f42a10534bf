// The addresses of one host, as the MCP bridge finds them: each address enters itself here when
// it registers (src/index.ts), by the host's server, which every encapsulated instance of one
// Fastify app shares. Nothing here runs unless a bridge is registered; an address costs one entry.
import type { Address } from '../address/address.ts'
import type { Door } from '../address/door.ts'
import type { Settings } from '../address/options.ts'
import type { Backgrounded } from '../jobs/index.ts'

/** One address on the host, as the bridge reaches it: by its own routes, through its door (src/address/door.ts). */
export interface Hosted {
  readonly address: Address
  /** The settings POST runs with. */
  readonly settings: Settings
  /** The door a call enters the address's POST route by. */
  readonly door: Door
  /** Set where the address has `background`. */
  readonly background: Backgrounded | undefined
}

const hosts = new WeakMap<object, Hosted[]>()

/** Enters an address of the host serving on `server`. */
export function enter (server: object, hosted: Hosted): void {
  const list = hosts.get(server)
  if (list === undefined) hosts.set(server, [hosted])
  else list.push(hosted)
}

/** The addresses of the host serving on `server`, in the order they registered. */
export function hostedOn (server: object): readonly Hosted[] {
  return hosts.get(server) ?? []
}
