import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Host, Linkable, LinkSet } from './set.ts'

// The fastify-gpt addresses of each server, by path: every instance of one Fastify app shares its
// `server`, so an address finds the others whatever plugin registered them.
const hosts = new WeakMap<object, Map<string, Linkable>>()

function addressesOf (server: object): Map<string, Linkable> {
  let addresses = hosts.get(server)
  if (addresses === undefined) {
    addresses = new Map()
    hosts.set(server, addresses)
  }
  return addresses
}

/** The host an instance (or a reply's instance) serves addresses on. */
export function hostOf (instance: FastifyInstance): Host {
  const addresses = addressesOf(instance.server)
  return {
    find: (path) => addresses.get(path),
    routed: (path) => instance.hasRoute({ method: 'GET', url: path }),
    paths: () => [...addresses.keys()].sort()
  }
}

export const replyHost = (reply: FastifyReply): Host => hostOf(reply.server)

/**
 * Makes the address findable by the links of others, and, when it names addresses itself, resolves
 * them once the host is ready (an unresolved one fails `ready()`), rebuilding its arrival then and
 * whenever what it says of them changes.
 */
export function installLinks (instance: FastifyInstance, address: Linkable & { rearrive (): void }, links: LinkSet | undefined): void {
  const addresses = addressesOf(instance.server)
  addresses.set(address.path, address)
  instance.addHook('onClose', async () => {
    if (addresses.get(address.path) === address) addresses.delete(address.path)
  })
  if (links === undefined) return
  instance.addHook('onReady', async () => {
    links.resolve(hostOf(instance), () => address.rearrive())
    address.rearrive()
  })
}
