import type { FastifyReply } from 'fastify'
import { GPT_ERR_LINK_INVALID } from '../errors.ts'
import { boundLinkHeader, linkHeader } from './header.ts'
import { replyHost } from './host.ts'
import { resolveLinks, type Link, type LinkOption } from './option.ts'
import { findAll, link } from './set.ts'

/**
 * An act's result naming the addresses to go on to: `result` with an `l` member, and the same links
 * in the reply's `Link` header (added to any it has, the whole at most MAX_LINK_HEADER bytes).
 * Links are checked as the `links` option's are, and a path on this host must be a fastify-gpt
 * address now; otherwise this throws a named error, which fails the act (a bare 500). draft §5.3
 * leaves the body's shape to the address.
 *
 * ```ts
 * act (body, request, reply) { return withLinks(reply, { order: 42 }, ['/pay']) }
 * ```
 */
export function withLinks<T extends object> (reply: FastifyReply, result: T, links: readonly LinkOption[]): T & { readonly l: readonly Link[] } {
  const path = reply.server.prefix === '' ? '/' : reply.server.prefix
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new GPT_ERR_LINK_INVALID(path, 'withLinks() adds "l" to an object result, not to an array or a primitive')
  }
  if (Object.hasOwn(result, 'l')) throw new GPT_ERR_LINK_INVALID(path, 'withLinks() was given a result that already has "l"')
  const targets = resolveLinks(links, path, '/l')
  const found = findAll(targets, replyHost(reply), path)
  const member = targets.map((target) => link(target, found.get(target.href)?.prompt))
  if (member.length > 0) {
    const before = reply.getHeader('link')
    const carried = before === undefined ? '' : Array.isArray(before) ? before.join(', ') : String(before)
    reply.header('link', boundLinkHeader(carried, linkHeader(member), path, '/l'))
  }
  return { ...result, l: member }
}
