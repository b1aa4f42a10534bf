import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { GPT_ERR_EDITION_NOT_STORED, GPT_ERR_OPTION_INVALID } from './errors.ts'
import type { Content } from './options.ts'

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

/** One edition as the address serves it: its content, and the stored version it is (0: never stored). */
export interface Versioned {
  readonly version: number
  readonly content: Content
}

/** What the address lets its shared editions do: build an edition without serving it, and serve one. */
export interface Holder<E extends Versioned> {
  readonly path: string
  readonly current: E
  /** The edition `change` makes of `base`, checked and compiled; throws a named error if refused. */
  next (change: unknown, base: Content, version: number): E
  /** An edition of stored content (JSON text); throws a named error if refused. */
  read (text: string, version: number): E
  /** Serves `edition` from now on, if it is newer than the one served. */
  serve (edition: E): void
}

// Stores ARGV[2] as the version after ARGV[1], only if ARGV[1] is still the stored version, and
// announces it. A conflict answers with what is stored instead, unless the stored edition is this
// very update (ARGV[3]) whose reply was lost and whose command the client sent again.
const PUT = `
local stored = redis.call('HMGET', KEYS[1], 'version', 'content', 'token')
local version = tonumber(stored[1]) or 0
if version ~= tonumber(ARGV[1]) then
  if stored[3] == ARGV[3] then return {1, version} end
  return {0, version, stored[2]}
end
version = version + 1
redis.call('HSET', KEYS[1], 'version', version, 'content', ARGV[2], 'token', ARGV[3])
redis.call('PUBLISH', KEYS[1], version)
return {1, version}`

// Stores ARGV[2] as version ARGV[1] if nothing newer is stored (at start: nothing at all; after a
// reconnection: Redis lost what it held), and answers with what is stored then.
const SEED = `
local version = tonumber(redis.call('HGET', KEYS[1], 'version')) or 0
if version < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'version', ARGV[1], 'content', ARGV[2], 'token', '')
  redis.call('PUBLISH', KEYS[1], ARGV[1])
end
return redis.call('HMGET', KEYS[1], 'version', 'content')`

const READ = "return redis.call('HMGET', KEYS[1], 'version', 'content')"

/** How long registration waits for Redis before it fails. */
const START_TIMEOUT = 10_000
/** Conflicts an update retries through before it gives up; each one means another instance stored first. */
const MAX_ATTEMPTS = 64

export const contentText = (content: Content): string =>
  JSON.stringify({ prompt: content.prompt, messages: content.messages, form: content.form })

/**
 * An address's editions, kept in one Redis hash (version, content, token) and announced on the
 * channel of the same name. Requests never wait on Redis: they read the edition last served.
 */
export class SharedEditions<E extends Versioned> {
  readonly #redis: SharedRedis
  readonly #key: string
  readonly #holder: Holder<E>
  readonly #log: FastifyBaseLogger
  #subscriber: SharedRedis | undefined
  // One update of this instance at a time: they would only conflict with each other.
  #queue: Promise<unknown> = Promise.resolve()
  #refreshing = false
  #again = false
  #refused = 0
  #closed = false

  constructor (share: ShareSettings, holder: Holder<E>, log: FastifyBaseLogger) {
    this.#redis = share.redis
    this.#key = share.key
    this.#holder = holder
    this.#log = log
  }

  /** Takes the stored edition, or stores the address's own as the first; both in one script, so instances starting together agree. */
  async start (): Promise<void> {
    const subscriber = this.#redis.duplicate()
    this.#subscriber = subscriber
    subscriber.on('error', () => {}) // the client reconnects by itself; `ready` resynchronizes
    subscriber.on('message', this.#onMessage)
    try {
      await Promise.all([ready(this.#redis), ready(subscriber)])
      await subscriber.subscribe(this.#key)
      const [version, text] = await this.#seed(1)
      this.#holder.serve(this.#holder.read(String(text), Number(version)))
    } catch (error) {
      await this.close()
      throw isNamed(error) ? error : this.#notStored(error)
    }
    this.#redis.on('ready', this.#resync)
    subscriber.on('ready', this.#resubscribe)
  }

  async close (): Promise<void> {
    this.#closed = true
    this.#redis.off('ready', this.#resync)
    const subscriber = this.#subscriber
    if (subscriber === undefined) return
    subscriber.off('ready', this.#resubscribe)
    subscriber.off('message', this.#onMessage)
    await subscriber.quit().catch(() => {})
  }

  /** Applies `change` to the latest stored edition and stores the result; retried on conflict. */
  update (change: unknown): Promise<void> {
    const token = randomUUID()
    const run = this.#queue.then(() => this.#store(change, token))
    this.#queue = run.catch(() => {})
    return run
  }

  async #store (change: unknown, token: string): Promise<void> {
    let base: E = this.#holder.current
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Checked and compiled before anything is stored: a refused change is never half-applied.
      const edition = this.#holder.next(change, base.content, base.version + 1)
      if (this.#redis.status !== 'ready') throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `Redis is ${this.#redis.status}`)
      let reply: [number, number, string | null]
      try {
        reply = await this.#redis.eval(PUT, 1, this.#key, base.version, contentText(edition.content), token) as typeof reply
      } catch (error) {
        throw this.#notStored(error)
      }
      const [stored, version, text] = reply
      if (stored === 1) {
        this.#holder.serve(edition)
        return
      }
      // Another instance stored first: start again from its edition (an instance that cannot build it cannot build on it).
      base = this.#holder.read(String(text), version)
      this.#holder.serve(base)
    }
    throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `other instances stored first ${MAX_ATTEMPTS} times in a row`)
  }

  #onMessage = (channel: string, message: string): void => {
    if (channel === this.#key && Number(message) > this.#holder.current.version) this.#refresh()
  }

  /** Reads and serves the stored edition; notifications arriving meanwhile make one more read. */
  #refresh (): void {
    if (this.#refreshing) {
      this.#again = true
      return
    }
    this.#refreshing = true
    this.#redis.eval(READ, 1, this.#key).then(
      (reply) => { this.#serveStored(reply as [string | null, string | null]) },
      (error: unknown) => { this.#log.warn({ address: this.#holder.path, err: error }, 'gpt: could not read the shared edition') }
    ).finally(() => {
      this.#refreshing = false
      if (this.#again && !this.#closed) {
        this.#again = false
        this.#refresh()
      }
    })
  }

  // After a reconnection: missed notifications are read now, and an edition Redis lost is put back.
  #resync = (): void => {
    if (this.#closed) return
    this.#seed(this.#holder.current.version).then(
      (reply) => { this.#serveStored(reply) },
      (error: unknown) => { this.#log.warn({ address: this.#holder.path, err: error }, 'gpt: could not resynchronize the shared edition') }
    )
  }

  #resubscribe = (): void => {
    // Subscribed again once this reply comes (it follows the client's own resubscription), so
    // what the resync reads is at least as new as every notification missed.
    this.#subscriber?.subscribe(this.#key).then(this.#resync, () => {})
  }

  async #seed (version: number): Promise<[string | null, string | null]> {
    return await this.#redis.eval(SEED, 1, this.#key, version, contentText(this.#holder.current.content)) as [string | null, string | null]
  }

  /**
   * Serves the stored edition if it is newer than the one served. One this instance cannot build
   * is logged once and left: the address keeps serving its last edition.
   */
  #serveStored ([version, text]: [string | null, string | null]): void {
    const number = Number(version)
    if (text === null || !(number > this.#holder.current.version)) return
    try {
      this.#holder.serve(this.#holder.read(text, number))
    } catch (error) {
      if (number > this.#refused) {
        this.#refused = number
        this.#log.error({ address: this.#holder.path, version: number, err: error }, 'gpt: the shared edition is refused here; serving the last one')
      }
    }
  }

  #notStored (error: unknown): Error {
    return new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, error instanceof Error ? error.message : String(error))
  }
}

const isNamed = (error: unknown): boolean => String((error as { code?: unknown } | undefined)?.code).startsWith('GPT_ERR_')

/** Resolves once the client is connected; rejects if it gives up or is not connected after START_TIMEOUT. */
async function ready (redis: SharedRedis): Promise<void> {
  if (redis.status === 'ready') return
  if (redis.status === 'wait') redis.connect().catch(() => {}) // lazyConnect: the first command would connect it
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error): void => {
      clearTimeout(timer)
      redis.off('ready', onReady)
      redis.off('end', onEnd)
      if (error === undefined) resolve()
      else reject(error)
    }
    const onReady = (): void => { settle() }
    const onEnd = (): void => { settle(new Error('the Redis client gave up connecting')) }
    const timer = setTimeout(() => { settle(new Error(`Redis not ready after ${START_TIMEOUT} ms (${redis.status})`)) }, START_TIMEOUT)
    redis.on('ready', onReady)
    redis.on('end', onEnd)
  })
}
