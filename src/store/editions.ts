// An address's editions in Redis: one hash (version, content, token) announced on the channel of
// the same name. Reads, compare-and-sets and the subscription; when to do which is the shared
// editions' to decide (src/address/editions/shared.ts).
import { randomUUID } from 'node:crypto'
import type { SharedRedis, ShareSettings } from './share.ts'
import { ready, Subscriber } from './subscriber.ts'
import type { Content } from '../types.ts'

/**
 * The highest version an instance writes or takes. Versions count updates from 1, so a higher one
 * (2^53, say) was not written by an instance: 2^48 updates take 890 years at 10,000 a second.
 */
export const MAX_VERSION = 2 ** 48

// What is stored, as {version, token, content}, '' for a missing field; over ARGV's limit, the
// content's size in bytes instead of the content, so a huge edition never crosses the network.
const STATE = `
local function state (key, limit)
  local stored = redis.call('HMGET', key, 'version', 'token')
  local size = redis.call('HSTRLEN', key, 'content')
  if size > limit then return {stored[1] or '', stored[2] or '', size} end
  return {stored[1] or '', stored[2] or '', redis.call('HGET', key, 'content') or ''}
end
`
// KEYS: the edition's hash. ARGV: the most content bytes read.
const READ = `${STATE}return state(KEYS[1], tonumber(ARGV[1]))`

// A compare-and-set: stores the new version with its content and token only if the version and
// token stored are still those the update was based on (the token tells apart two editions of one
// version, as after a key is lost), and announces it. A conflict answers with what is stored,
// unless the stored edition is this very update, whose reply was lost and command sent again.
const PUT = `${STATE}
local key = KEYS[1]
local baseVersion, baseToken, version, content, token, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
local stored = redis.call('HMGET', key, 'version', 'token')
if (stored[1] or '') == baseVersion and (stored[2] or '') == baseToken then
  redis.call('HSET', key, 'version', version, 'content', content, 'token', token)
  redis.call('PUBLISH', key, version)
  return {1}
end
if stored[2] == token then return {1} end
local now = state(key, limit)
return {0, now[1], now[2], now[3]}`

/** What is stored: the content, or its size when above what the instance reads (storedBytes). */
export interface Stored {
  readonly version: string
  readonly token: string
  readonly content: string | number
}

/** The stored version and token as last seen: what the next compare-and-set expects. */
export interface Seen {
  readonly version: string
  readonly token: string
}

/** The content as stored: JSON text of its three members. */
export const contentText = (content: Content): string =>
  JSON.stringify({ prompt: content.prompt, messages: content.messages, form: content.form })

/** A version an instance writes: an integer from 1 to MAX_VERSION, written plainly. */
export const isVersion = (raw: string): boolean => /^[1-9][0-9]{0,14}$/.test(raw) && Number(raw) <= MAX_VERSION

/**
 * One address's hash and channel. Each reply (a read, or a compare-and-set stored or in conflict)
 * is what was last seen stored, so the next compare-and-set is based on it.
 */
export class EditionStore {
  readonly #redis: SharedRedis
  readonly #key: string
  /** The most bytes of stored content read: a larger edition stays in Redis and never crosses the network. */
  readonly #most: number
  readonly #subscriber: Subscriber
  #seen: Seen = { version: '', token: '' }
  #onReady: (() => void) | undefined

  /** `onVersion` is told each version announced on the channel. */
  constructor (share: ShareSettings, most: number, onVersion: (version: string) => void) {
    this.#redis = share.redis
    this.#key = share.key
    this.#most = most
    // The client reconnects by itself; `reconnected` resynchronizes.
    this.#subscriber = new Subscriber(share.redis, share.key, (channel, message) => {
      if (channel === this.#key) onVersion(message)
    })
  }

  get seen (): Seen { return this.#seen }

  /** The client's status: 'ready' when commands go through. */
  get status (): string { return this.#redis.status }

  /** Connected and subscribed; rejects as `ready` does. */
  async open (): Promise<void> {
    await Promise.all([ready(this.#redis), this.#subscriber.start()])
  }

  /**
   * Calls `then` after each reconnection: of the client, and of the subscriber once subscribed
   * again (following the client's own resubscription), so that what is read then is at least as
   * new as every announcement missed.
   */
  reconnected (then: () => void): void {
    this.#onReady = then
    this.#redis.on('ready', then)
    this.#subscriber.resubscribed(then)
  }

  async read (): Promise<Stored> {
    const [version, token, content] = await this.#redis.eval(READ, 1, this.#key, this.#most) as [string, string, string | number]
    this.#seen = { version, token }
    return { version, token, content }
  }

  /** Stores `text` as `version` if what was last seen is still stored: answers undefined, or else what is stored. */
  async put (text: string, version: number): Promise<Stored | undefined> {
    const token = randomUUID()
    const reply = await this.#redis.eval(PUT, 1, this.#key, this.#seen.version, this.#seen.token, version,
      text, token, this.#most) as [number, string?, string?, (string | number)?]
    if (reply[0] === 1) {
      this.#seen = { version: String(version), token }
      return undefined
    }
    const stored = { version: reply[1] ?? '', token: reply[2] ?? '', content: reply[3] ?? '' }
    this.#seen = { version: stored.version, token: stored.token }
    return stored
  }

  async close (): Promise<void> {
    if (this.#onReady !== undefined) this.#redis.off('ready', this.#onReady)
    await this.#subscriber.close()
  }
}
