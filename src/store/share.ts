// The `share` option (docs/deploying.md): where an address's editions are kept, checked once at
// registration. Apart from the editions themselves, so that the options read it without a circle.
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'

/**
 * What sharing needs of a Redis client: the few ioredis methods used here, so that an ioredis
 * `Redis` (the client the rate limit takes) fits and ioredis stays out of the package's types.
 */
export interface SharedRedis {
  readonly status: string
  eval (script: string, keys: number, ...args: (string | number)[]): Promise<unknown>
  duplicate (): SharedRedis
  subscribe (channel: string): Promise<unknown>
  connect (): Promise<void>
  quit (): Promise<unknown>
  on (event: 'ready' | 'end', listener: () => void): unknown
  on (event: 'error', listener: (error: Error) => void): unknown
  on (event: 'message', listener: (channel: string, message: string) => void): unknown
  off (event: 'ready' | 'end', listener: () => void): unknown
  off (event: 'message', listener: (channel: string, message: string) => void): unknown
}

/** The `share` option: where an address's editions are kept. */
export interface ShareOptions {
  /** An ioredis client, best created with `enableOfflineQueue: false` (docs/deploying.md). */
  redis: SharedRedis
  /** The Redis key (and pub/sub channel) of the address's editions. Default `fastify-gpt:edition:<path>`. */
  key?: string
}

export interface ShareSettings {
  readonly redis: SharedRedis
  readonly key: string
}

export function resolveShare (share: unknown, path: string): ShareSettings {
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  if (share === null || typeof share !== 'object') throw invalid('"share" must be { redis, key? }')
  for (const name of Object.keys(share)) {
    if (name !== 'redis' && name !== 'key') throw invalid(`"share" has an unknown member "${name}"`)
  }
  const { redis, key = `fastify-gpt:edition:${path}` } = share as Record<string, unknown>
  const client = redis as Partial<SharedRedis> | null | undefined
  if (typeof client?.eval !== 'function' || typeof client.duplicate !== 'function') throw invalid('"share.redis" must be an ioredis client')
  if (typeof key !== 'string' || key === '') throw invalid('"share.key" must be a non-empty string')
  return Object.freeze({ redis: client as SharedRedis, key })
}
