import { publishEdition } from '../../diagnostics.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Editions, Holder, Versioned } from './local.ts'
import { judge, type PortableSettings } from './judge.ts'
import { contentText, EditionStore, isVersion, MAX_VERSION, type Stored } from '../../store/editions.ts'
import { GPT_ERR_EDITION_NOT_STORED, GPT_ERR_EDITION_REFUSED } from '../../errors.ts'
import { storedBytes } from '../../limits.ts'
import type { ShareSettings } from '../../store/share.ts'
import type { Content, Message } from '../../types.ts'

/**
 * Where the loop is. It hears Redis's news while starting, idle or running, and no longer once
 * closed; closed-running is closed with a run still going (an update after close still runs, and
 * is stored if Redis takes it).
 */
type Phase = 'starting' | 'idle' | 'running' | 'closed' | 'closed-running'
type Event = 'started' | 'run' | 'ran' | 'close'

// The phase each event leads to; one not listed does not apply there: no run while one runs, none
// before started (start reads what is stored itself), no second close.
const TRANSITIONS: { readonly [P in Phase]: Readonly<Partial<Record<Event, Phase>>> } = {
  starting: { started: 'idle', close: 'closed' },
  idle: { run: 'running', close: 'closed' },
  running: { ran: 'idle', close: 'closed-running' },
  closed: { run: 'closed-running' },
  'closed-running': { ran: 'closed' }
}

const HEARING: ReadonlySet<Phase> = new Set<Phase>(['starting', 'idle', 'running'])

/** What the loop is asked for besides the queued updates: a read of what is stored, or putting back an edition Redis lost. */
type Want = 'refresh' | 'repair'

/** Why the stored edition cannot be built on: the instance then stores the one it serves above it. */
type Problem = 'missing' | 'absurd' | 'lower'

/** Content ready to store, as stored, and its edition if it was built to be checked. */
interface Composed<E> {
  readonly content: Content
  readonly text: string
  readonly edition: E | undefined
}

interface Pending {
  readonly change: unknown
  readonly resolve: () => void
  readonly reject: (error: unknown) => void
}

/** How one try at storing a batch ended: stored (or nothing left to store), the lost edition put back first, or what is stored instead. */
type Attempt = 'done' | 'again' | Stored

/** Conflicts an update retries through before it gives up; each one means another instance stored first. */
const MAX_ATTEMPTS = 64
/** The backoff after a conflict: a random wait up to BACKOFF_BASE × 2^conflicts ms, at most BACKOFF_CAP. */
const BACKOFF_BASE = 2
const BACKOFF_CAP = 100

/**
 * An address's editions shared through Redis (src/store/editions.ts). Requests never wait
 * on Redis: they read the edition last served.
 *
 * Everything that reads or writes the hash runs in one loop (#run): a read after a notification,
 * then the updates queued meanwhile, applied together to the edition served and stored by one
 * compare-and-set. What is read is untrusted: bounded in size by the store, and judged off the
 * event loop (src/address/editions/judge.ts) unless its form is the one already served.
 */
export class SharedEditions<E extends Versioned> implements Editions {
  readonly #store: EditionStore
  readonly #holder: Holder<E>
  readonly #log: FastifyBaseLogger
  readonly #settings: PortableSettings
  /**
   * The most bytes of stored content this instance reads (storedBytes: the largest edition within
   * its limits): a larger edition stays in Redis, refused, and is never sent to the instance.
   */
  readonly #most: number
  #phase: Phase = 'starting'
  readonly #wanted = new Set<Want>()
  #pending: Pending[] = []
  /** The highest version seen stored; a lower one stored later means Redis went back. */
  #known = 0
  /** The token of the edition served. */
  #token = ''
  /** The last stored edition refused here, logged once. */
  #lastRefused = { version: 0, token: '' }
  #form: { readonly form: object, readonly text: string } | undefined
  /** The content of the stored edition last seen, when it was taken as a base without being served. */
  #base: Content | undefined

  constructor (share: ShareSettings, holder: Holder<E>, log: FastifyBaseLogger, settings: PortableSettings) {
    this.#holder = holder
    this.#log = log
    this.#settings = settings
    this.#most = storedBytes(settings.limits)
    this.#store = new EditionStore(share, this.#most, this.#onVersion)
  }

  /** Takes the stored edition, or stores the address's own as the first (by compare-and-set, so instances starting together agree). */
  async start (): Promise<void> {
    judge.acquire()
    try {
      await this.#store.open()
      await this.#takeFirst()
    } catch (error) {
      await this.close()
      throw isNamed(error) ? error : this.#notStored(error)
    }
    this.#store.reconnected(this.#resync)
    this.#go('started')
    this.#kick() // notified while starting
  }

  async close (): Promise<void> {
    if (!this.#go('close')) return
    judge.release()
    await this.#store.close()
  }

  /** Applies `change` to the latest stored edition with the others queued here, and stores the result. */
  update (change: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ change, resolve, reject })
      this.#kick()
    })
  }

  /** Moves to the phase `event` leads to; false, staying, where it does not apply. */
  #go (event: Event): boolean {
    const next = TRANSITIONS[this.#phase][event]
    if (next === undefined) return false
    this.#phase = next
    return true
  }

  /** The first edition: the one stored, or (none stored yet) the address's own, stored as version 1. */
  async #takeFirst (): Promise<void> {
    let stored: Stored | undefined = await this.#store.read()
    while (stored !== undefined) {
      if (isVersion(stored.version)) {
        await this.#learn(stored, true, true)
        return
      }
      if (stored.version !== '') throw new GPT_ERR_EDITION_REFUSED(this.#holder.path, absurd(stored.version))
      stored = await this.#put(contentText(this.#holder.current.content), 1)
      if (stored === undefined) this.#built(this.#holder.build(this.#holder.current.content, 1), this.#store.seen.token)
    }
  }

  /** Runs the loop if there is work and it is not running (nor starting). */
  #kick (): void {
    if (this.#next() === undefined || !this.#go('run')) return
    this.#run().catch((error: unknown) => {
      /* c8 ignore next: #flush and #refresh settle every caller and catch Redis's errors themselves; this keeps a throw no test can cause from ending the process as an unhandled rejection */
      this.#log.error({ address: this.#holder.path, err: error }, 'gpt: shared editions failed')
    }).finally(() => {
      this.#go('ran')
      this.#kick()
    })
  }

  /**
   * What the loop does next: the queued updates or a repair before any read (a conflict answers
   * with what is stored, and a store serves a newer edition), else a read, else nothing.
   */
  #next (): 'store' | 'refresh' | undefined {
    if (this.#pending.length > 0 || this.#wanted.has('repair')) return 'store'
    return this.#wanted.has('refresh') ? 'refresh' : undefined
  }

  /** One thing at a time, until nothing is wanted. */
  async #run (): Promise<void> {
    for (let step = this.#next(); step !== undefined; step = this.#next()) {
      if (step === 'store') {
        this.#wanted.delete('repair')
        await this.#flush(this.#pending.splice(0))
        if (this.#base !== undefined) this.#wanted.add('refresh') // a stored edition taken as a base but not stored upon: served by a read
      } else {
        this.#wanted.delete('refresh')
        await this.#refresh()
      }
    }
  }

  /** Stores `batch` applied to the latest edition, by one compare-and-set; on conflict, again on what is stored. */
  async #flush (batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let outcome: Attempt
      try {
        outcome = await this.#attempt(batch)
      } catch (error) {
        return this.#fail(batch, error)
      }
      if (outcome === 'done') return
      if (outcome === 'again') continue // the changes, at once, on the edition put back
      await this.#learn(outcome, false)
      if (attempt === MAX_ATTEMPTS) {
        return this.#fail(batch, new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `other instances stored first ${MAX_ATTEMPTS} times in a row`))
      }
      await sleep(Math.random() * Math.min(BACKOFF_CAP, BACKOFF_BASE * 2 ** attempt))
    }
  }

  /** One try at storing `batch` (or first the edition Redis lost); throws the error that fails the batch. */
  async #attempt (batch: Pending[]): Promise<Attempt> {
    if (this.#store.status !== 'ready') throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `Redis is ${this.#store.status}`)
    const problem = this.#problem(this.#store.seen.version)
    if (problem !== undefined) {
      const stored = await this.#notStoredIfFails(this.#reseed(problem))
      return stored ?? (batch.length === 0 ? 'done' : 'again')
    }
    const version = Number(this.#store.seen.version) + 1
    if (version > MAX_VERSION) {
      throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `version ${MAX_VERSION} is stored, the highest there is`)
    }
    const composed = this.#compose(batch, this.#base ?? this.#holder.current.content, version)
    if (composed === undefined) return 'done' // nothing to store: every change refused
    const stored = await this.#notStoredIfFails(this.#put(composed.text, version))
    if (stored !== undefined) return stored
    const { token } = this.#store.seen
    let edition: E
    try {
      edition = composed.edition ?? this.#holder.build(composed.content, version)
    } catch (error) {
      this.#refused(version, error, token) // stored, but not to be served here: left like any refused edition
      throw error
    }
    this.#built(edition, token)
    for (const { resolve } of batch) resolve() // stored, and served here
    return 'done'
  }

  /**
   * Stores the newest edition known again, as the highest version seen: Redis lost it (or was given a
   * lower or absurd one). Every instance doing so at once converges on the newest: one finding a
   * lower version stored puts back its own. Answers undefined once stored, or else what is stored.
   */
  async #reseed (problem: Problem): Promise<Stored | undefined> {
    const current = this.#holder.current
    // The newest edition known here: the one served, or a newer one met in a conflict and not yet served.
    const content = this.#base ?? current.content
    const version = this.#known
    const what = this.#described(problem)
    const stored = await this.#put(contentText(content), version)
    if (stored !== undefined) return stored
    this.#built(version === current.version && content === current.content ? current : this.#holder.build(content, version), this.#store.seen.token)
    this.#log.warn({ address: this.#holder.path, version }, `gpt: the shared edition ${what}; stored the one served here again, as version ${version}`)
    return undefined
  }

  #fail (batch: readonly Pending[], error: unknown): void {
    for (const { reject } of batch) reject(error)
  }

  /**
   * The content `batch` makes of `base`, checked for storing as `version`. A change refused (by its
   * shape, its form, the size of the result) fails its own caller and is left out; the others still
   * apply. Undefined when nothing is left to store.
   */
  #compose (batch: Pending[], base: Content, version: number): Composed<E> | undefined {
    // A new form is checked where it comes, so that a later change cannot hide a refused one.
    const together = this.#fold(batch, base, version, (next, previous) =>
      next.form === previous.form ? undefined : this.#holder.build(next, version))
    if (batch.length === 0) return undefined
    try {
      return this.#checked(together.content, version, together.last?.content === together.content ? together.last : undefined)
    } catch {
      // One of them is refused as a whole: checked one at a time, each on the last that passed.
      return this.#fold(batch, base, version, (next) => this.#checked(next, version)).last
    }
  }

  /**
   * `batch` applied to `base` in order, each result passed to `check`: a change that does not apply,
   * or whose result `check` throws on, is refused and left out of `batch`. Answers the content, and
   * the last value `check` gave.
   */
  #fold<T> (batch: Pending[], base: Content, version: number, check: (next: Content, previous: Content) => T | undefined): { content: Content, last: T | undefined } {
    let content = base
    let last: T | undefined
    for (let i = 0; i < batch.length; i++) {
      try {
        const next = this.#holder.apply(batch[i]!.change, content)
        last = check(next, content) ?? last
        content = next
      } catch (error) {
        this.#refused(version, error, batch.splice(i--, 1)[0]!)
      }
    }
    return { content, last }
  }

  /**
   * `content` ready to store: within this.#most (storedBytes) and, if its form is not the one served,
   * built (a form may be refused). A change of p or m only cannot be refused once it applies, so
   * its edition is built once stored: the time between reading and storing stays short.
   */
  #checked (content: Content, version: number, built?: E): Composed<E> {
    const text = contentText(content)
    const bytes = Buffer.byteLength(text)
    /* c8 ignore next 3: content within the limits (checked by apply) is never above storedBytes (limits.ts), so no test can reach this; it keeps an edition every instance would refuse from being stored if the two ever disagree */
    if (bytes > this.#most) {
      throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `the edition would be ${bytes} bytes, above the ${this.#most} bytes every instance reads`)
    }
    const edition = built ?? (content.form === this.#holder.current.content.form ? undefined : this.#holder.build(content, version))
    return { content, text, edition }
  }

  /** Stores `text` as `version` if what was last seen is still stored: answers undefined, or else what is stored. */
  async #put (text: string, version: number): Promise<Stored | undefined> {
    const stored = await this.#store.put(text, version)
    if (stored === undefined) this.#stored(version)
    return stored
  }

  /** Reads and serves the stored edition; one lost or gone back is repaired with the edition served. */
  async #refresh (): Promise<void> {
    let stored: Stored
    try {
      stored = await this.#store.read()
    } catch (error) {
      this.#log.warn({ address: this.#holder.path, err: error }, 'gpt: could not read the shared edition')
      return
    }
    if (await this.#learn(stored, true) !== undefined) this.#wanted.add('repair')
  }

  /**
   * Takes note of what is stored, and answers the problem if it cannot be built on. A newer edition
   * is served, or (`serve` false, its form the one served) kept as the base of the next store only.
   * An edition this instance refuses is logged once and left (`starting`: thrown).
   */
  async #learn (stored: Stored, serve: boolean, starting = false): Promise<Problem | undefined> {
    const { version, token, content } = stored
    const problem = this.#problem(version)
    if (problem !== undefined) return problem // a base taken stays: it is the newest edition known, and the one put back
    const base = this.#base
    this.#base = undefined
    const number = Number(version)
    this.#known = number
    if ((number === this.#holder.current.version && token === this.#token) || (number === this.#lastRefused.version && token === this.#lastRefused.token)) return
    try {
      if (typeof content === 'number') {
        throw new GPT_ERR_EDITION_REFUSED(this.#holder.path, `edition ${number} is ${content} bytes, above the ${this.#most} an instance reads`)
      }
      const same = this.#sameForm(content)
      if (same !== undefined) {
        // The form served, so what costs (compile, lint) is done: p and m cost their bytes, bounded
        // above, and each message this instance already holds is taken as held, not copied again.
        const { current } = this.#holder
        const messages = reused(same['messages'], [current.content.messages, base?.messages ?? []])
        const next = this.#holder.apply({ prompt: '', messages: [], ...same, ...(messages === undefined ? {} : { messages }), form: undefined }, current.content)
        if (serve) this.#built(this.#holder.build(next, number), token)
        else this.#base = next
        return
      }
      // Any other form is judged off the event loop first, and built here only if it was built there in time.
      await judge.judge(this.#holder.path, this.#settings, content, number)
      const edition = this.#holder.read(content, number)
      if (number >= this.#holder.current.version) this.#built(edition, token) // never back, whatever was served while it was judged
    } catch (error) {
      if (starting) throw error
      this.#refused(number, error, token)
    }
  }

  /** The stored content, parsed, if its form is the one served. */
  #sameForm (text: string): Record<string, unknown> | undefined {
    const { form } = this.#holder.current.content
    if (this.#form?.form !== form) this.#form = { form, text: JSON.stringify(form) }
    try {
      const parsed = JSON.parse(text) as unknown
      const record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {}
      return JSON.stringify(record['form']) === this.#form.text ? record : undefined
    } catch {
      return undefined // not JSON, or nested deeper than the stack: the judge says so by name
    }
  }

  /** An edition built (or the one served, stored again as `token`), served here from now on. */
  #built (edition: E, token: string): void {
    this.#holder.serve(edition)
    this.#token = token
  }

  /** This instance stored `version` in Redis: the newest known, and no base taken is left to build on. */
  #stored (version: number): void {
    this.#known = Math.max(this.#known, version)
    this.#base = undefined
    publishEdition(this.#holder.path, 'stored', version)
  }

  /**
   * An edition refused here, and why: a change's (`of` its caller, told so; the others still
   * apply), or a stored edition's (`of` its token), logged once and left: the instance serves the
   * last one, and updates store above it.
   */
  #refused (version: number, reason: unknown, of: Pending | string): void {
    publishEdition(this.#holder.path, 'refused', typeof of === 'string' ? version : this.#holder.current.version, undefined, reason)
    if (typeof of !== 'string') return of.reject(reason)
    this.#lastRefused = { version, token: of }
    this.#log.error({ address: this.#holder.path, version, err: reason }, 'gpt: the shared edition is refused here; serving the last one, and updates store above it')
  }

  /** Missing (deleted, flushed, evicted), absurd, or lower than a version seen stored: Redis lost what it held. */
  #problem (version: string): Problem | undefined {
    if (version === '') return 'missing'
    if (!isVersion(version)) return 'absurd'
    return Number(version) < this.#known ? 'lower' : undefined
  }

  #described (problem: Problem): string {
    const seen = this.#store.seen.version
    if (problem === 'missing') return 'was missing (deleted, flushed or evicted)'
    return problem === 'absurd' ? `had ${absurd(seen)}` : `had gone back to version ${seen}, below version ${this.#known} stored before (a restored backup?)`
  }

  #onVersion = (version: string): void => {
    if (version !== this.#store.seen.version) this.#resync()
  }

  // After a notification or a reconnection: what is stored is read now, and an edition Redis lost is put back.
  #resync = (): void => {
    if (!HEARING.has(this.#phase)) return
    this.#wanted.add('refresh')
    this.#kick()
  }

  async #notStoredIfFails<T> (pending: Promise<T>): Promise<T> {
    try {
      return await pending
    } catch (error) {
      throw this.#notStored(error)
    }
  }

  #notStored (error: unknown): Error {
    return new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, error instanceof Error ? error.message : String(error))
  }
}

/**
 * The stored messages, each one written exactly as a message held here (members role then content,
 * the same strings) replaced by that frozen message, which the content checks take as checked:
 * learning an edition that appended to the board then copies the new messages, not all of them.
 * A message written otherwise (other members, another order) is left to be checked and copied, so
 * the bytes served are those of the stored text. Undefined when `stored` is not an array.
 */
export function reused (stored: unknown, held: ReadonlyArray<readonly Message[]>): unknown[] | undefined {
  if (!Array.isArray(stored)) return undefined
  const known = new Map<string, Map<string, Message>>()
  for (const messages of held) {
    for (const message of messages) {
      if (!written(message)) continue
      let byContent = known.get(message.role)
      if (byContent === undefined) known.set(message.role, byContent = new Map())
      byContent.set(message.content, message)
    }
  }
  return stored.map((message: unknown) => written(message) ? known.get(message.role)?.get(message.content) ?? message : message)
}

/** A message whose JSON is {"role":…,"content":…}: two string members, in that order. */
function written (message: unknown): message is Message {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false
  const keys = Object.keys(message)
  return keys.length === 2 && keys[0] === 'role' && keys[1] === 'content' &&
    typeof (message as Message).role === 'string' && typeof (message as Message).content === 'string'
}

const absurd = (version: string): string =>
  `version ${JSON.stringify(version.slice(0, 40))}, which no instance writes (versions are integers from 1 to ${MAX_VERSION})`

const isNamed = (error: unknown): boolean => String((error as { code?: unknown } | undefined)?.code).startsWith('GPT_ERR_')
