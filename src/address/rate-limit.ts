import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { Settings } from './options.ts'

// draft §3.2 and §5.3: rate-limit headers on ordinary responses would make the arrival vary with
// prior contact and tell rejected bodies apart; only a 429 says when to come back.
const RATE_LIMIT_LABELS = ['limit', 'remaining', 'reset'].flatMap((name) => [`x-ratelimit-${name}`, `ratelimit-${name}`])
const SILENT = Object.fromEntries(RATE_LIMIT_LABELS.map((label) => [label, false]))
export const QUIET_HEADERS = {
  addHeadersOnExceeding: SILENT,
  addHeaders: { ...SILENT, 'retry-after': true }
} satisfies RateLimitPluginOptions

/**
 * The address's rate limit, on its own instance, unless `rateLimit: false`. A host's rate-limit
 * headers are taken off in each route's last onSend (quiet, src/address/arrival.ts): one hook a
 * request instead of two. An MCP call enters the address's POST route (src/address/door.ts), so
 * calls and posts are one count.
 */
export async function installRateLimit (instance: FastifyInstance, settings: Settings): Promise<void> {
  if (settings.rateLimit === false) return
  await instance.register(rateLimit, { ...QUIET_HEADERS, ...storeDefaults(settings), ...settings.rateLimit, global: true })
}

/**
 * With Redis, each address keeps its counts apart, and a Redis outage lets requests through
 * (fail open): a shared store going away must not take every address down with it, and bodies
 * are still bounded, parsed and validated (docs/deploying.md).
 */
function storeDefaults (settings: Settings): RateLimitPluginOptions {
  if (settings.rateLimit === false || settings.rateLimit.redis === undefined) return {}
  return { nameSpace: `fastify-gpt:${settings.path}:`, skipOnError: true }
}
