// An address as the MCP bridge finds it on its host: its record in the host's one registry
// (src/hosts.ts), which the plugin entry makes (src/index.ts).
import type { Address } from '../address/address.ts'
import { hostedOn as addressesOn } from '../hosts.ts'
import type { Door } from '../address/door.ts'
import type { Settings } from '../address/options.ts'
import type { Backgrounded } from '../jobs/index.ts'

/** One address on the host, as the bridge reaches it: by its own routes, through its door (src/address/door.ts). */
export interface Hosted {
  readonly path: string
  readonly address: Address
  /** The settings POST runs with. */
  readonly settings: Settings
  /** The door a call enters the address's POST route by. */
  readonly door: Door
  /** Set where the address has `background`. */
  readonly background: Backgrounded | undefined
}

/** The addresses of the host serving on `server`, in the order they registered. */
export function hostedOn (server: object): readonly Hosted[] {
  return [...addressesOn<Hosted>(server).values()]
}
