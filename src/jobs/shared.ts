// Jobs shared through Redis (`share` with `background`; docs/jobs.md, "Across instances"): a
// job's state and events live in Redis, so any instance answers its address and its stream; the
// act runs in the process it started in, which keeps a lease alive while it lives.
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { Subscriber } from '../store/subscriber.ts'
import type { SharedRedis, ShareSettings } from '../store/share.ts'
import { MESSAGES } from './arrival.ts'
import { RETAINED, type Job, type JobEvent, type Status } from './job.ts'
import type { BackgroundSettings } from './settings.ts'
import { UNAVAILABLE, type JobSource, type JobView } from './source.ts'
import { Pulse, Watchers } from './pulse.ts'
import type { JobStore } from './store.ts'

/** The most one progress event (its line and its message) takes in Redis; a larger one is not shared. */
export const PROGRESS_BYTES = 8192
/** The most a result takes in Redis; a larger one fails the job (every instance must read it). */
export const RESULT_BYTES = 1_048_576
/** The most one stored value is read as: larger is not something this plugin wrote. */
const ENTRY_BYTES = RESULT_BYTES + 16_384
/** The most one read of a job brings back: its fields and up to RETAINED events. */
const READ_BYTES = ENTRY_BYTES + RETAINED * PROGRESS_BYTES + 65_536

const STATUSES: readonly string[] = ['working', 'completed', 'failed', 'cancelled']
/** A decimal integer as JavaScript and Lua write one: no sign, no leading zero, no exponent. */
const INTEGER = /^(?:0|[1-9]\d{0,15})$/
/** The last time `Date` holds (ECMA-262 §21.4.1.1): a later one has no ISO form for the arrival. */
const LAST_TIME = 8.64e15
/** What each status's line holds after its seq, up to its JSON value (src/jobs/job.ts writes them). */
const HEADS: Readonly<Record<Status, string>> = {
  working: ',"status":"working","progress":',
  completed: ',"status":"completed","result":',
  failed: ',"status":"failed"',
  cancelled: ',"status":"cancelled"'
}

// A job's hash (status, started, version, owner, progressed, result, expires) and its events (a
// list of `<NDJSON line><message>`), both gone `keep` ms after the job ends. Every change is one
// script: the first end wins, whichever instance writes it, and is announced on the channel.
// Events come in batches (those queued while the last batch was written); Redis numbers them.
// KEYS: hash, events, channel. ARGV: now, keep, retained, ttl while working, digest, then per
// event: status, the line after `{"seq":N,`, message, progressed or result JSON.
const APPEND = `
local hash, events, channel = KEYS[1], KEYS[2], KEYS[3]
local now, keep, retained, ttl, digest = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
if redis.call('TYPE', hash).ok ~= 'hash' then return {0, ''} end
local kind = redis.call('TYPE', events).ok
if kind ~= 'list' and kind ~= 'none' then return {0, ''} end
local status = redis.call('HGET', hash, 'status')
if status ~= 'working' then return {0, status or ''} end
local last = 'working'
for i = 6, #ARGV, 4 do
  local eventStatus, line, message, value = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local v = redis.call('HINCRBY', hash, 'version', 1)
  redis.call('RPUSH', events, '{"seq":' .. v .. ',' .. line .. message)
  if eventStatus == 'working' then
    redis.call('HSET', hash, 'progressed', value)
  else
    last = eventStatus
    redis.call('HSET', hash, 'status', last, 'expires', tostring(now + tonumber(keep)))
    if last == 'completed' then redis.call('HSET', hash, 'result', value) end
    break
  end
end
redis.call('LTRIM', events, -retained, -1)
if last == 'working' then
  redis.call('PEXPIRE', events, ttl)
else
  redis.call('PEXPIRE', hash, keep)
  redis.call('PEXPIRE', events, keep)
end
redis.call('PUBLISH', channel, digest .. ' ' .. last)
return {1, last}
`

// KEYS: hash, events, owner's lease. ARGV: started, owner, ttl while working, lease.
const CREATE = `
local hash, events, lease = KEYS[1], KEYS[2], KEYS[3]
local started, owner, ttl, leaseMs = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
redis.call('DEL', hash, events)
redis.call('HSET', hash, 'status', 'working', 'started', started, 'version', '0', 'owner', owner)
redis.call('PEXPIRE', hash, ttl)
redis.call('SET', lease, '1', 'PX', leaseMs)
return 1
`

// A job and its events after a cursor. A working job whose owner's lease is gone is failed here,
// once, by whichever instance looks first. 0: no job; -1: not a job this plugin wrote.
// KEYS: hash, events, owner lease prefix, channel. ARGV: cursor, count, now, keep, entry bytes,
// read bytes, digest, retained.
const READ = `
local hash, events, leases, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local cursor, count, now, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local most, readMost, digest, retained = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], tonumber(ARGV[8])
local kind = redis.call('TYPE', hash).ok
if kind == 'none' then return 0 end
if kind ~= 'hash' then return -1 end
local listed = redis.call('TYPE', events).ok
if listed ~= 'list' and listed ~= 'none' then return -1 end
local fields = {'status', 'started', 'version', 'owner', 'progressed', 'result', 'expires'}
local total = 0
for _, name in ipairs(fields) do
  local size = redis.call('HSTRLEN', hash, name)
  if size > most then return -1 end
  total = total + size
end
if redis.call('HLEN', hash) > #fields then return -1 end
if redis.call('HGET', hash, 'status') == 'working' then
  local owner = redis.call('HGET', hash, 'owner')
  if not owner or redis.call('EXISTS', leases .. owner) == 0 then
    local v = tonumber(redis.call('HGET', hash, 'version'))
    if not v then return -1 end
    v = v + 1
    redis.call('HSET', hash, 'version', tostring(v), 'status', 'failed', 'expires', tostring(now + tonumber(keep)))
    redis.call('RPUSH', events, '{"seq":' .. v .. ',"status":"failed"}\\nFailed.')
    redis.call('LTRIM', events, -retained, -1)
    redis.call('PEXPIRE', hash, keep)
    redis.call('PEXPIRE', events, keep)
    redis.call('PUBLISH', channel, digest .. ' failed')
  end
end
local f = redis.call('HMGET', hash, 'status', 'started', 'version', 'progressed', 'result', 'expires')
local v = tonumber(f[3])
if not v then return -1 end
local n = redis.call('LLEN', events)
local from = math.max(0, n - (v - cursor), n - count)
local entries = redis.call('LRANGE', events, from, -1)
for _, entry in ipairs(entries) do
  if #entry > most then return -1 end
  total = total + #entry
end
if total > readMost then return -1 end
return {f[1] or '', f[2] or '', f[3], f[4] or '', f[5] or '', f[6] or '', entries}
`

// KEYS: hash, events, channel. ARGV: digest. A running job is never forgotten (its form says cancel).
const FORGET = `
local hash, events, channel, digest = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if redis.call('TYPE', hash).ok == 'hash' and redis.call('HGET', hash, 'status') == 'working' then return 0 end
redis.call('DEL', hash, events)
redis.call('PUBLISH', channel, digest .. ' forgotten')
return 1
`

// The owner's sign of life, and its running jobs kept from expiring; answers their statuses.
// KEYS: owner lease, then hash and events of each job. ARGV: lease, ttl while working.
const REFRESH = `
local lease, leaseMs, ttl = KEYS[1], ARGV[1], ARGV[2]
redis.call('SET', lease, '1', 'PX', leaseMs)
local statuses = {}
for i = 2, #KEYS, 2 do
  local hash, events = KEYS[i], KEYS[i + 1]
  local status = false
  if redis.call('TYPE', hash).ok == 'hash' then status = redis.call('HGET', hash, 'status') end
  if status == 'working' then
    redis.call('PEXPIRE', hash, ttl)
    redis.call('PEXPIRE', events, ttl)
  end
  statuses[#statuses + 1] = status or ''
end
return statuses
`

// KEYS: owner lease. The process is leaving: its jobs are ended already.
const RESIGN = "redis.call('DEL', KEYS[1]) return 1"

/** One event as APPEND takes it: status, line after its seq, message, progressed or result JSON. */
type Write = [Status, string, string, string]

/** A job this process runs: what is still being written of it to Redis. */
interface Owned {
  readonly job: Job
  readonly digest: string
  /** Resolves once the job is in Redis (or could not be put there). */
  readonly created: Promise<boolean>
  /** Events not yet sent, at most RETAINED (Redis would keep no more of them). */
  readonly queue: Write[]
  /** The batch being written, if one is. */
  writing: Promise<void> | undefined
  /** Its end is in Redis (written here, or come from there): nothing more to write. */
  settled: boolean
  /** It is in Redis: until then, its absence there says nothing. */
  stored: boolean
}

/** A job as Redis holds it, read at one moment. */
class Snapshot implements JobView {
  constructor (
    readonly id: string,
    readonly status: Status,
    readonly started: number,
    readonly version: number,
    readonly progressed: string | undefined,
    readonly result: string | undefined,
    readonly expires: number | undefined,
    readonly events: readonly JobEvent[]
  ) {}

  get done (): boolean { return this.status !== 'working' }

  last (count: number): readonly JobEvent[] { return this.events.slice(-count) }
}

/** Not something this plugin wrote: the job reads as absent. */
class Corrupt extends Error {}

/**
 * The jobs of one address across every instance sharing its Redis key. Jobs started here are
 * mirrored into Redis event by event; every read, here too, comes from Redis, so that every
 * instance answers alike.
 */
export class SharedJobs implements JobSource {
  readonly #redis: SharedRedis
  readonly #prefix: string
  readonly #channel: string
  readonly #owner: string
  readonly #lease: string
  readonly #settings: BackgroundSettings
  readonly #store: JobStore
  readonly #log: FastifyBaseLogger
  readonly #path: string
  readonly #owned = new Map<string, Owned>()
  readonly #watchers = new Watchers()
  readonly #writes = new Set<Promise<void>>()
  readonly #warned = new Set<string>()
  #subscriber: Subscriber | undefined
  #timer: ReturnType<typeof setInterval> | undefined
  #closed = false

  constructor (share: ShareSettings, settings: BackgroundSettings, store: JobStore, log: FastifyBaseLogger, path: string) {
    this.#redis = share.redis
    this.#prefix = `${share.key}:job:`
    this.#channel = `${share.key}:jobs`
    this.#owner = randomBytes(12).toString('base64url')
    this.#lease = `${share.key}:owner:`
    this.#settings = settings
    this.#store = store
    this.#log = log
    this.#path = path
  }

  /** Subscribes to the address's job announcements; registration waits for it. */
  async start (): Promise<void> {
    // The client reconnects by itself; streams look again every lease.
    this.#subscriber = new Subscriber(this.#redis, this.#channel, this.#onMessage)
    await this.#subscriber.start()
    await this.#redis.eval(REFRESH, 1, this.#ownerKey(), this.#settings.lease, this.#ttl()) // alive from the start
    this.#store.shared = { admitted: (job) => this.#admitted(job), forgotten: (id) => { this.#owned.delete(digest(id)) } }
    // Three signs of life a lease: one lost to a slow round trip does not fail a job.
    this.#timer = setInterval(() => { this.#refresh() }, Math.max(1, Math.floor(this.#settings.lease / 3)))
    this.#timer.unref()
  }

  /** After the store has ended this process's jobs: their ends written, streams closed, lease given up. */
  async close (): Promise<void> {
    this.#closed = true
    clearInterval(this.#timer)
    this.#watchers.wakeAll()
    await Promise.allSettled([...this.#writes])
    await this.#redis.eval(RESIGN, 1, this.#ownerKey()).catch(() => {})
    await this.#subscriber?.close()
  }

  async get (id: string): Promise<JobView | undefined | typeof UNAVAILABLE> {
    return await this.#read(id, 0, MESSAGES)
  }

  /** Written in Redis, and announced: the process running the act hears it and aborts its signal. */
  async cancel (id: string): Promise<Status | undefined | typeof UNAVAILABLE> {
    const key = this.#key(id)
    try {
      const [, status] = await this.#redis.eval(APPEND, 3, key, `${key}:events`, this.#channel, Date.now(), this.#settings.keep,
        RETAINED, this.#ttl(), digest(id), 'cancelled', '"status":"cancelled"}\n', 'Cancelled.', '') as [number, string]
      return STATUSES.includes(status) ? status as Status : undefined
    } catch {
      return UNAVAILABLE
    }
  }

  async forget (id: string): Promise<void | typeof UNAVAILABLE> {
    const key = this.#key(id)
    try {
      await this.#redis.eval(FORGET, 3, key, `${key}:events`, this.#channel, digest(id))
    } catch {
      return UNAVAILABLE
    }
  }

  async * events (id: string, cursor: number, heartbeat: number, signal: AbortSignal): AsyncGenerator<JobEvent | null> {
    const pulse = new Pulse(heartbeat)
    const stop = this.#watchers.add(digest(id), pulse.poke)
    // Announcements may be missed (a reconnection); a look every lease also finds an owner gone.
    const look = setInterval(pulse.poke, this.#settings.lease)
    signal.addEventListener('abort', pulse.poke, { once: true })
    try {
      for (;;) {
        if (signal.aborted || this.#closed) return
        if (pulse.dirty) {
          pulse.dirty = false
          const job = await this.#read(id, cursor, RETAINED)
          if (job === undefined) return // forgotten, expired or unreadable: the stream ends
          if (job === UNAVAILABLE) continue // Redis away: the next look tries again
          for (const event of job.events) {
            if (event.seq <= cursor) continue
            cursor = event.seq
            yield event
          }
          if (job.done) return
          continue
        }
        if (pulse.beat()) {
          yield null
          continue
        }
        await pulse.wait()
      }
    } finally {
      pulse.close()
      clearInterval(look)
      signal.removeEventListener('abort', pulse.poke)
      stop()
    }
  }

  /** A job admitted here: stored before its first event, then its events written as they come. */
  #admitted (job: Job): Promise<boolean> {
    const key = this.#key(job.id)
    const created = this.#redis.eval(CREATE, 3, key, `${key}:events`, this.#ownerKey(), job.started, this.#owner, this.#ttl(), this.#settings.lease)
      .then(() => {
        owned.stored = true
        return true
      }, (error: unknown) => {
        this.#log.error({ address: this.#path, err: error }, 'gpt: a job could not be stored in Redis; the act is answered 503')
        owned.settled = true // nothing of it is in Redis to end
        return false
      })
    const owned: Owned = { job, digest: digest(job.id), created, queue: [], writing: undefined, settled: false, stored: false }
    this.#owned.set(owned.digest, owned)
    job.subscribe((event) => { this.#write(owned, event) })
    return created
  }

  /** Queues one event of a job run here, and writes the queue unless a batch is on its way. */
  #write (owned: Owned, event: JobEvent): void {
    if (owned.settled) return // the end came from Redis (or the job never got there)
    const { job } = owned
    const tail = event.line.slice(event.line.indexOf(',') + 1)
    if (event.status === 'working') {
      if (Buffer.byteLength(event.line) + Buffer.byteLength(event.message) > PROGRESS_BYTES) {
        this.#log.debug({ address: this.#path }, 'gpt: a progress event too large to share is left out')
        return
      }
      owned.queue.push(['working', tail, event.message, job.progressed ?? 'null'])
      // Redis keeps the last RETAINED events: older ones still queued would be dropped there.
      if (owned.queue.length > RETAINED) owned.queue.shift()
    } else if (event.status === 'completed' && Buffer.byteLength(job.result ?? '') > RESULT_BYTES) {
      this.#log.warn({ address: this.#path }, `gpt: a job's result is larger than ${RESULT_BYTES} bytes, the most shared through Redis; the job reads as failed`)
      owned.queue.push(['failed', '"status":"failed"}\n', 'Failed.', ''])
    } else {
      owned.queue.push([event.status, tail, event.message, event.status === 'completed' ? job.result ?? 'null' : ''])
    }
    if (owned.writing === undefined) this.#flush(owned)
  }

  /** Writes what is queued, a batch at a time, until nothing is. */
  #flush (owned: Owned): void {
    const key = this.#key(owned.job.id)
    const writing = (async () => {
      if (!await owned.created) return
      while (owned.queue.length > 0 && !owned.settled) {
        const batch = owned.queue.splice(0)
        const ends = batch.at(-1)![0] !== 'working'
        try {
          const [written, stored] = await this.#redis.eval(APPEND, 3, key, `${key}:events`, this.#channel, owned.job.finished ?? Date.now(),
            this.#settings.keep, RETAINED, this.#ttl(), owned.digest, ...batch.flat()) as [number, string]
          if (written !== 1) this.#endedThere(owned, stored)
          else if (ends) owned.settled = true
        } catch (error) {
          // Not written: progress is missed by other instances; an end is written again at the
          // next sign of life (#refresh), so that the job does not read as working for ever.
          this.#log.warn({ address: this.#path, err: error }, 'gpt: job events could not be written to Redis')
        }
      }
    })().finally(() => {
      owned.writing = undefined
      this.#writes.delete(writing)
    })
    owned.writing = writing
    this.#writes.add(writing)
  }

  /** Redis says the job ended (cancelled from another instance, failed for a lapsed lease, gone): so it does here. */
  #endedThere (owned: Owned, status: string): void {
    owned.settled = true
    const now = this.#store.clock.now()
    if (status === 'failed') owned.job.fail(now)
    else owned.job.cancel(now) // cancelled, or gone from Redis: nobody can read it, so it stops
  }

  #onMessage = (channel: string, message: string): void => {
    if (channel !== this.#channel) return
    const space = message.indexOf(' ')
    const hash = message.slice(0, space)
    const status = message.slice(space + 1)
    this.#watchers.wake(hash)
    const owned = this.#owned.get(hash)
    if (owned === undefined) return
    if (status === 'forgotten') this.#store.forget(owned.job.id)
    else if ((status === 'cancelled' || status === 'failed') && !owned.job.done) this.#endedThere(owned, status)
  }

  /** The owner's sign of life; a job it runs that Redis says ended, ends here; an end not yet written is written again. */
  #refresh (): void {
    const running = [...this.#owned.values()].filter((owned) => owned.stored && !owned.settled)
    const keys = running.flatMap((owned) => { const key = this.#key(owned.job.id); return [key, `${key}:events`] })
    this.#redis.eval(REFRESH, 1 + keys.length, this.#ownerKey(), ...keys, this.#settings.lease, this.#ttl()).then((statuses) => {
      (statuses as string[]).forEach((status, i) => {
        const owned = running[i]!
        if (owned.settled) return
        if (status !== 'working') this.#endedThere(owned, status)
        else if (owned.job.done) this.#write(owned, owned.job.last(1)[0]!)
      })
    }, (error: unknown) => {
      this.#log.warn({ address: this.#path, err: error }, 'gpt: could not renew the lease of this process\'s jobs in Redis')
    })
  }

  /** A job from Redis, checked: anything this plugin would not have written reads as no job. */
  async #read (id: string, cursor: number, count: number): Promise<Snapshot | undefined | typeof UNAVAILABLE> {
    const key = this.#key(id)
    const reply: unknown = await this.#redis.eval(READ, 4, key, `${key}:events`, this.#lease, this.#channel,
      cursor, count, Date.now(), this.#settings.keep, ENTRY_BYTES, READ_BYTES, digest(id), RETAINED).catch((error: unknown) => error)
    if (reply instanceof Error) {
      // Redis refused the script (a key of the wrong type): the job; anything else: the connection.
      return reply.name === 'ReplyError' ? this.#corrupt(id, reply) : UNAVAILABLE
    }
    // 0: no job there (never written, expired or forgotten)
    return reply === 0 ? undefined : this.#checked(id, reply)
  }

  /** A job's snapshot read from `reply`, or undefined (said at warn) when it is not one this plugin wrote. */
  #checked (id: string, reply: unknown): Snapshot | undefined {
    try {
      return snapshot(id, reply)
    } catch (error) {
      return this.#corrupt(id, error)
    }
  }

  #corrupt (id: string, error: unknown): undefined {
    const hash = digest(id)
    if (!this.#warned.has(hash)) {
      if (this.#warned.size >= 1000) this.#warned.clear()
      this.#warned.add(hash)
      // The key, not the id: the key is a digest, so the log never holds the capability.
      this.#log.warn({ address: this.#path, key: this.#key(id), err: error }, 'gpt: a shared job in Redis is not one this plugin wrote; it answers 404')
    }
    return undefined
  }

  #key (id: string): string { return this.#prefix + digest(id) }
  #ownerKey (): string { return this.#lease + this.#owner }
  /** How long a running job's keys live without a sign of life from its owner. */
  #ttl (): number { return this.#settings.lease + this.#settings.keep }
}

/** The job id as it is in Redis keys and messages: a digest, so that neither holds the capability. */
function digest (id: string): string {
  return createHash('sha256').update(id).digest('base64url')
}

/**
 * A READ reply as a snapshot; throws Corrupt at anything this plugin would not have written. The
 * arrival and the stream put what it holds on the wire as it is (src/jobs/arrival.ts,
 * src/jobs/framing.ts), so a value is taken only in the one form this plugin writes it.
 */
function snapshot (id: string, reply: unknown): Snapshot {
  if (!Array.isArray(reply) || reply.length !== 7) throw new Corrupt('not a job')
  const [status, started, version, progressed, result, expires, entries] = reply as unknown[]
  if (typeof status !== 'string' || !STATUSES.includes(status)) throw new Corrupt('status')
  const start = time(started, 'started', 0)
  const last = integer(version, 'version', Number.MAX_SAFE_INTEGER)
  let ends: number | undefined
  // An expiry is an end's time plus `keep`: never before the start.
  if (status !== 'working') ends = time(expires, 'expires', start)
  else if (expires !== '') throw new Corrupt('expires')
  if (typeof progressed !== 'string' || (progressed !== '' && !canonical(progressed))) throw new Corrupt('progressed')
  if (typeof result !== 'string' || (status === 'completed' ? !canonical(result) : result !== '')) throw new Corrupt('result')
  return new Snapshot(id, status as Status, start, last, progressed === '' ? undefined : progressed,
    result === '' ? undefined : result, ends, eventsOf(entries, status as Status, last, result))
}

/**
 * The events of a READ reply: the job's last ones, numbered up to its version one by one (every
 * event is one HINCRBY and one RPUSH), all working but the last, which has the job's status; each
 * line exactly as src/jobs/job.ts writes it, an end's result the job's. READ brings back at most
 * `version - cursor` of them, so the first seq is 1 or more.
 */
function eventsOf (entries: unknown, status: Status, version: number, result: string): JobEvent[] {
  if (!Array.isArray(entries)) throw new Corrupt('events')
  const events: JobEvent[] = []
  const first = version - entries.length + 1
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i]
    if (typeof entry !== 'string') throw new Corrupt('event')
    const seq = first + i
    const kind = i === entries.length - 1 ? status : 'working'
    const end = entry.indexOf('\n') + 1
    const line = entry.slice(0, end)
    const head = `{"seq":${seq}${HEADS[kind]}`
    // The value between the head and `}\n`: JSON as JSON.stringify writes it (so no CR, LF or trailing space to split an SSE line).
    const value = line.slice(head.length, -2)
    if (end === 0 || !line.startsWith(head) || !line.endsWith('}\n') ||
      (kind === 'completed' ? value !== result : kind === 'working' ? !canonical(value) : value !== '')) throw new Corrupt('event')
    events.push({ seq, status: kind, line, message: entry.slice(end) })
  }
  return events
}

/** A time in ms since the epoch, `from` or later, that `Date` can write in ISO form. */
function time (text: unknown, what: string, from: number): number {
  const value = integer(text, what, LAST_TIME)
  if (value < from) throw new Corrupt(what)
  return value
}

function integer (text: unknown, what: string, most: number): number {
  if (typeof text !== 'string' || !INTEGER.test(text)) throw new Corrupt(what)
  const value = Number(text)
  if (value > most) throw new Corrupt(what)
  return value
}

/** JSON text exactly as JSON.stringify writes its value: no whitespace, no other escape or number form. */
function canonical (text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === text
  } catch {
    return false
  }
}
