// An address's editions in Redis: one hash (version, content, token) per address, announced on
// the channel of the same name, read and written by two Lua scripts. No scheduling and no judging
// here: the reconcile loop (src/address/editions.ts) decides when to read and what to store.
import { randomUUID } from 'node:crypto'
import type { SharedRedis } from './share.ts'

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

/** The version and token last seen stored: what a compare-and-set expects to find. */
export interface Observed {
  readonly version: string
  readonly token: string
}

export class EditionStore {
  constructor (
    readonly redis: SharedRedis,
    readonly key: string,
    /** The most bytes of stored content read (storedBytes): a larger edition stays in Redis, and its size comes instead. */
    readonly most: number
  ) {}

  async read (): Promise<Stored> {
    const [version, token, content] = await this.redis.eval(READ, 1, this.key, this.most) as [string, string, string | number]
    return { version, token, content }
  }

  /**
   * Stores `text` as `version` if what is stored is still `observed`, and announces it: the new
   * observed state, or (a conflict) what is stored instead.
   */
  async put (text: string, version: number, observed: Observed): Promise<{ readonly stored: Observed } | { readonly conflict: Stored }> {
    const token = randomUUID()
    const reply = await this.redis.eval(PUT, 1, this.key, observed.version, observed.token, version,
      text, token, this.most) as [number, string?, string?, (string | number)?]
    if (reply[0] !== 1) return { conflict: { version: reply[1] ?? '', token: reply[2] ?? '', content: reply[3] ?? '' } }
    return { stored: { version: String(version), token } }
  }
}
