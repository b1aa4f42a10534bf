// An address's keys in Redis, shared by every instance serving it: one hash a key, claimed,
// answered and freed by Lua scripts, each one atomic step, so that of two instances claiming one
// key at once exactly one runs the act. A running claim carries a lease its process renews; a
// claim whose lease lapsed (its process died mid-act) reads as the LOST answer, since the act may
// have run, and is never run again. Each script keeps the address's ledger (ledger.ts) in the same
// step, so that the keys are bounded as in one process: maxKeys, maxBytes, a client's quarter.
import { randomUUID } from 'node:crypto'
import type { SharedRedis } from '../store/share.ts'
import { UNKEPT as LOST, type Ticket } from '../address/guard.ts'
import { LATE, within } from '../address/settle.ts'
import { clientShare, RUNNING_RETRY, type Claim, type IdempotencySettings, type Keys, type Kept } from './keys.ts'
import { LEDGER, ledgerKeys } from './ledger.ts'

// Redis's clock, so that every instance reads a lease by one clock.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`
// KEYS: the key's hash, ledgerKeys, the store's epoch. ARGV: the prefix, fingerprint, owner, lease,
// keep, the lost answer, the client, maxKeys, maxBytes and the client's quarter of each.
// Answers {'claimed'}, {'mismatch'}, {'done', answer}, {'running', ms left of the lease},
// {'full', ms until a place frees} (the address's, or the client's, whichever it lacks), or
// {'away', ms}: the epoch is gone, so Redis lost its keys while instances ran (a restart without
// persistence, FLUSHALL, a failover): for one lease no key is claimed anew, while each running act
// writes its claim back as it renews it, and a retry of one is never taken for a new key.
const CLAIM = `${NOW}${LEDGER}
local epoch, fingerprint, owner, lease, keep, lost, client = KEYS[7], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7]
local grace = redis.call('GET', epoch)
if not grace then
  grace = now + lease
  redis.call('SET', epoch, grace)
end
local stored = redis.call('HMGET', hash, 'fingerprint', 'answer', 'until')
if not stored[1] then
  local left = tonumber(grace) - now
  if left > 0 then return {'away', left} end
  trim(ledger, now)
  trim(mine, now)
  empty()
  local function oldest (set) return tonumber(redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')[2] or now) - now end
  local wait
  if redis.call('ZCOUNT', ledger, now, '+inf') >= tonumber(ARGV[8]) or tonumber(redis.call('GET', total) or 0) >= tonumber(ARGV[9]) then wait = oldest(ledger) end
  if redis.call('ZCOUNT', mine, now, '+inf') >= tonumber(ARGV[10]) or tonumber(redis.call('HGET', held, client) or 0) >= tonumber(ARGV[11]) then wait = math.max(wait or 0, oldest(mine)) end
  if wait then return {'full', math.max(wait, 0)} end
  redis.call('HSET', hash, 'fingerprint', fingerprint, 'owner', owner, 'until', now + lease)
  redis.call('PEXPIREAT', hash, now + keep + lease)
  hold(client, 0, now + keep + lease)
  return {'claimed'}
end
if stored[1] ~= fingerprint then return {'mismatch'} end
if stored[2] then return {'done', stored[2]} end
local left = tonumber(stored[3]) - now
if left > 0 then return {'running', left} end
redis.call('HSET', hash, 'answer', lost)
redis.call('HDEL', hash, 'owner')
redis.call('PEXPIREAT', hash, now + keep)
hold(select(2, entry(member)) or client, #lost, now + keep)
return {'done', lost}`

// KEYS: the key's hash, ledgerKeys. ARGV: the prefix, the client, owner, fingerprint, then a lease
// and keep (renew), or an answer and keep (answer), or nothing (free). Only the claim's owner may,
// and only while its act runs; a claim Redis lost (the hash gone) is written back by its owner,
// never left for another. Each keeps the key's ledger entry: a running act's holds no bytes.
const OWNED = `local owner = redis.call('HGET', hash, 'owner')
if owner and owner ~= ARGV[3] then return 0 end
if not owner and redis.call('EXISTS', hash) == 1 then return 0 end
`
const RENEW = `${NOW}${LEDGER}${OWNED}
local at = now + tonumber(ARGV[5]) + tonumber(ARGV[6])
redis.call('HSET', hash, 'fingerprint', ARGV[4], 'owner', ARGV[3], 'until', now + tonumber(ARGV[5]))
redis.call('PEXPIREAT', hash, at)
hold(ARGV[2], 0, at)
return 1`
const ANSWER = `${NOW}${LEDGER}${OWNED}
local at = now + tonumber(ARGV[6])
redis.call('HSET', hash, 'fingerprint', ARGV[4], 'answer', ARGV[5])
redis.call('HDEL', hash, 'owner')
redis.call('PEXPIREAT', hash, at)
hold(ARGV[2], #ARGV[5], at)
return 1`
// KEYS: the key's hash, ledgerKeys. ARGV: the prefix, the client, fingerprint, the answer that
// replaces the kept one (its time to live kept, and its holder).
const AMEND = `${NOW}${LEDGER}
if redis.call('HGET', hash, 'fingerprint') ~= ARGV[3] or redis.call('HEXISTS', hash, 'answer') == 0 then return 0 end
redis.call('HSET', hash, 'answer', ARGV[4])
hold(select(2, entry(member)) or ARGV[2], #ARGV[4], tonumber(redis.call('ZSCORE', ledger, member)) or now + redis.call('PTTL', hash))
return 1`
const FREE = `${LEDGER}
if redis.call('HGET', hash, 'owner') ~= ARGV[3] then return 0 end
forget(member)
empty()
return redis.call('DEL', hash)`
// KEYS: the store's epoch, set where there is none when an instance starts (a store new to its
// keys, not one that lost them).
const EPOCH = `if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], 0) end
return 1`

// KEYS: the key's hash. Answers its fingerprint and kept answer (either nil).
const READ = 'return redis.call(\'HMGET\', KEYS[1], \'fingerprint\', \'answer\')'

/** Seconds to wait before asking again while Redis is away. */
const AWAY_RETRY = 1

/**
 * Milliseconds the act's path waits on one Redis call about a key (docs/idempotency.md): a Redis
 * that is frozen, or a client that queues commands while it reconnects, is away past it, so a
 * keyed act is answered 503 within 2 s, twice this at most.
 */
export const REDIS_DEADLINE = 900

const AWAY = Symbol('away')

/** A Redis call's answer, or AWAY where it failed or took longer than REDIS_DEADLINE. */
async function ask (call: Promise<unknown>): Promise<unknown> {
  try {
    const answer = await within(call, REDIS_DEADLINE)
    return answer === LATE ? AWAY : answer
  } catch {
    return AWAY
  }
}

export class SharedKeys implements Keys {
  readonly #redis: SharedRedis
  readonly #prefix: string
  readonly #settings: IdempotencySettings
  readonly #warn: (message: string) => void
  readonly #lost: string
  /** The key whose absence tells that Redis lost the keys while instances ran. */
  readonly #epoch: string
  /** Leases renewed while their acts run, each stopped when its act is answered. */
  readonly #renewing = new Set<ReturnType<typeof setInterval>>()

  constructor (redis: SharedRedis, prefix: string, settings: IdempotencySettings, warn: (message: string) => void) {
    this.#redis = redis
    this.#prefix = prefix
    this.#settings = settings
    this.#warn = warn
    this.#lost = JSON.stringify(LOST)
    this.#epoch = `${prefix}epoch`
  }

  async claim (key: string, fingerprint: string, client: string): Promise<Claim> {
    const id = this.#prefix + key
    const owner = randomUUID()
    const { keep, lease, maxKeys, maxBytes } = this.#settings
    const keys = [id, ...ledgerKeys(this.#prefix, client)]
    // A claim that lands after the deadline has no process to renew it: its lease lapses, and it
    // reads as the LOST answer, so the act is never run for it.
    const reply = await ask(this.#redis.eval(CLAIM, 7, ...keys, this.#epoch, this.#prefix, fingerprint, owner, lease, keep, this.#lost, client,
      maxKeys, maxBytes, clientShare(maxKeys), clientShare(maxBytes)))
    if (reply === AWAY) return { kind: 'away', retryAfter: AWAY_RETRY }
    const [kind, value] = reply as [string, string | number | undefined]
    if (kind === 'mismatch') return { kind }
    if (kind === 'running' || kind === 'away' || kind === 'full') return { kind, retryAfter: Math.max(RUNNING_RETRY, Math.ceil(Number(value) / 1000)) }
    if (kind === 'done') return { kind, kept: keptOf(String(value)) }
    return { kind: 'claimed', ticket: this.#ticket(keys, client, owner, fingerprint) }
  }

  /**
   * Marks the store as holding this address's keys from now on, where nothing does yet; warns
   * where Redis's memory policy may evict them (a kept answer evicted runs its act again).
   */
  async start (): Promise<void> {
    await ask(this.#redis.eval(EPOCH, 1, this.#epoch))
    const call = (this.#redis as { call?: (...args: string[]) => Promise<unknown> }).call
    if (typeof call !== 'function') return
    const policy = await ask(call.call(this.#redis, 'CONFIG', 'GET', 'maxmemory-policy')) // a managed Redis may refuse CONFIG: then nothing is said
    const named = Array.isArray(policy) ? policy[1] : undefined
    if (typeof named === 'string' && named !== 'noeviction') {
      this.#warn(`gpt: Redis's maxmemory-policy is ${named}: it may evict idempotency keys, and an act whose key was evicted runs again on a retry; use noeviction (docs/idempotency.md)`)
    }
  }

  async kept (key: string, fingerprint: string): Promise<Kept | 'away' | undefined> {
    const stored = await ask(this.#redis.eval(READ, 1, this.#prefix + key))
    if (stored === AWAY) return 'away'
    const [storedFingerprint, answer] = stored as [string | null, string | null]
    return storedFingerprint === fingerprint && typeof answer === 'string' ? keptOf(answer) : undefined
  }

  /**
   * The claim's owner: its lease renewed (its claim written back, were it lost) every third of it
   * until the act is answered, and then its answer (or its freeing) sent at the same pace until
   * Redis takes it: an answer lost to a Redis restarting as the act ends would free the key.
   */
  #ticket (keys: readonly string[], client: string, owner: string, fingerprint: string): Ticket {
    const { keep, lease } = this.#settings
    const call = (script: string, ...args: (string | number)[]): Promise<unknown> => this.#redis.eval(script, keys.length, ...keys, this.#prefix, client, ...args)
    let next = (): void => { call(RENEW, owner, fingerprint, lease, keep).catch(() => {}) }
    const beat = setInterval(() => { next() }, Math.max(1, Math.floor(lease / 3)))
    beat.unref()
    this.#renewing.add(beat)
    let told = false
    const end = (script: string, ...args: (string | number)[]): void => {
      if (told) return
      told = true
      let warned = false
      const send = (): void => {
        next = () => {}
        call(script, owner, ...args).then((done) => {
          clearInterval(beat)
          this.#renewing.delete(beat)
          if (done !== 1) this.#warn('gpt: an idempotency key\'s lease lapsed before its act was answered; retries get 500')
        }, () => {
          if (!warned) this.#warn('gpt: an idempotency key\'s answer was not stored: Redis is away; it is sent again every third of the lease until Redis takes it')
          warned = true
          next = send
        })
      }
      send()
    }
    return {
      done: (kept) => { end(ANSWER, fingerprint, JSON.stringify(kept), keep) },
      amend: (kept) => {
        call(AMEND, fingerprint, JSON.stringify(kept)).catch(() => { this.#warn('gpt: an idempotency key\'s job result was not stored: Redis is away; retries get its handle') })
      },
      free: () => { end(FREE) }
    }
  }

  async close (): Promise<void> {
    for (const renew of this.#renewing) clearInterval(renew)
    this.#renewing.clear()
  }
}

/** A stored answer read back; one that is not what an instance writes reads as LOST. */
function keptOf (text: string): Kept {
  try {
    const { status, headers, body } = JSON.parse(text) as Record<string, unknown>
    if (Number.isInteger(status) && typeof body === 'string' && headers !== null && typeof headers === 'object' && !Array.isArray(headers) &&
      Object.values(headers).every((value) => typeof value === 'string' || (Array.isArray(value) && value.every((each) => typeof each === 'string')))) {
      return { status: status as number, headers: headers as Kept['headers'], body }
    }
  } catch {}
  return LOST
}
