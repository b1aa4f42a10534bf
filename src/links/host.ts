import type { FastifyInstance, FastifyReply } from 'fastify'
import { hostedOn } from '../hosts.ts'
import type { Host, Linkable, LinkSet } from './set.ts'

/** What links read of an address's record on its host (src/hosts.ts). */
interface Hosted { readonly path: string, readonly address: Linkable }

/** The host an instance (or a reply's instance) serves addresses on. */
export function hostOf (instance: FastifyInstance): Host {
  const addresses = hostedOn<Hosted>(instance.server)
  return {
    find: (path) => addresses.get(path)?.address,
    routed: (path) => instance.hasRoute({ method: 'GET', url: path }),
    paths: () => [...addresses.keys()].sort()
  }
}

export const replyHost = (reply: FastifyReply): Host => hostOf(reply.server)

/**
 * Where the address names addresses itself: resolves them once the host is ready (an unresolved
 * one fails `ready()`), rebuilding its arrival then and whenever what it says of them changes.
 */
export function installLinks (instance: FastifyInstance, address: Linkable & { rearrive (): void }, links: LinkSet | undefined): void {
  if (links === undefined) return
  instance.addHook('onReady', async () => {
    links.resolve(hostOf(instance), () => address.rearrive())
    address.rearrive()
  })
}
