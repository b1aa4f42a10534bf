// The addresses of one host, as the MCP bridge finds them: each address enters itself here when
// it registers (src/index.ts), by the host's server, which every encapsulated instance of one
// Fastify app shares. Nothing here runs unless a bridge is registered; an address costs one entry.
import type { FastifyRequest } from 'fastify'
import type { Address } from '../address/address.ts'
import type { gatesOf } from '../address/fastify-internals.ts'
import type { Settings } from '../address/options.ts'
import type { Backgrounded } from '../jobs/index.ts'

/** One address on the host, as the bridge acts on it: exactly what its POST runs (src/address/pipeline.ts). */
export interface Hosted {
  readonly address: Address
  /** The settings POST runs with: `act` is the core's (jobs wraps the option's). */
  readonly settings: Settings
  /**
   * Counts one act of `request`'s client in the address's own rate limit (POST's counts and
   * these are one): seconds until it may act again when over it, else undefined.
   */
  readonly count: ((request: FastifyRequest) => Promise<number | undefined>) | undefined
  /** Set where the address has `background`. */
  readonly background: Backgrounded | undefined
  /**
   * The request hooks the address's instance runs before each act (a host's auth, say), as it
   * had them when it registered; undefined where Fastify's hooks cannot be read.
   */
  readonly gates: Gates | undefined
}

export type Gates = NonNullable<ReturnType<typeof gatesOf>>

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
