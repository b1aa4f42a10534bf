import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import { judge, type PortableSettings } from './editions-judge.ts'
import { publishEdition } from '../diagnostics.ts'
import { GPT_ERR_EDITION_NOT_STORED, GPT_ERR_EDITION_REFUSED } from '../errors.ts'
import { storedBytes } from '../limits.ts'
import type { ShareSettings } from './share.ts'
import { EditionStore, type Stored } from './editions-store.ts'
import type { Editions, Versioned } from './editions-local.ts'
import { ready, Subscriber } from './subscriber.ts'
import type { Content, Message } from '../types.ts'

/** What the address lets its shared editions do: build editions without serving them, and serve one. */
export interface Holder<E extends Versioned> {
  readonly path: string
  readonly current: E
  /** The content `change` (or a function of `base`) makes of `base`; throws a named error if refused. Nothing is compiled. */
  apply (change: unknown, base: Content): Content
  /** An edition of `content`, checked and compiled; throws a named error if refused. */
  build (content: Content, version: number): E
  /** An edition of stored content (JSON text); throws a named error if refused. */
  read (text: string, version: number): E
  /** Serves `edition` from now on (the editions decide which is newest). */
  serve (edition: E): void
}

/**
 * The highest version an instance writes or takes. Versions count updates from 1, so a higher one
 * (2^53, say) was not written by an instance: 2^48 updates take 890 years at 10,000 a second.
 */
export const MAX_VERSION = 2 ** 48

/** Where an address's shared editions stand: taking the stored edition (start()), serving, or closed. */
type Phase = 'starting' | 'serving' | 'closed'

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

/** Conflicts an update retries through before it gives up; each one means another instance stored first. */
const MAX_ATTEMPTS = 64
/** The backoff after a conflict: a random wait up to BACKOFF_BASE × 2^conflicts ms, at most BACKOFF_CAP. */
const BACKOFF_BASE = 2
const BACKOFF_CAP = 100

export const contentText = (content: Content): string =>
  JSON.stringify({ prompt: content.prompt, messages: content.messages, form: content.form })

const isVersion = (raw: string): boolean => /^[1-9][0-9]{0,14}$/.test(raw) && Number(raw) <= MAX_VERSION

/**
 * An address's editions, kept in one Redis hash (version, content, token) and announced on the
 * channel of the same name. Requests never wait on Redis: they read the edition last served.
 *
 * Everything that reads or writes the hash runs in one sequence (#run): a read after a
 * notification, then the updates queued meanwhile, applied together to the edition served and
 * stored by one compare-and-set. What is read is untrusted: bounded in size by the script, and
 * judged off the event loop (src/address/editions-judge.ts) unless its form is the one already served.
 */
export class SharedEditions<E extends Versioned> implements Editions {
  readonly #store: EditionStore
  readonly #holder: Holder<E>
  readonly #log: FastifyBaseLogger
  readonly #settings: PortableSettings
  #subscriber: Subscriber | undefined
  /** The stored version and token as last seen: what the next compare-and-set expects. */
  #observed = { version: '', token: '' }
  /** The highest version seen stored; a lower one stored later means Redis went back. */
  #known = 0
  /** The token of the edition served. */
  #token = ''
  /** The last stored edition refused here, logged once. */
  #refused = { version: 0, token: '' }
  #pending: Pending[] = []
  /** Where the editions stand: before start() has taken the stored edition, serving, or closed. */
  #phase: Phase = 'starting'
  /** Whether a run (#run) is under way: one at a time. */
  #loop: 'idle' | 'running' = 'idle'
  /** Work for the next run besides the queued updates: a read (notified, or resynced), a repair. */
  readonly #wanted = { read: false, repair: false }
  #form: { readonly form: object, readonly text: string } | undefined
  /** The content of the stored edition last seen, when it was taken as a base without being served. */
  #base: Content | undefined

  constructor (share: ShareSettings, holder: Holder<E>, log: FastifyBaseLogger, settings: PortableSettings) {
    this.#store = new EditionStore(share.redis, share.key, storedBytes(settings.limits))
    this.#holder = holder
    this.#log = log
    this.#settings = settings
  }

  /** Takes the stored edition, or stores the address's own as the first (by compare-and-set, so instances starting together agree). */
  async start (): Promise<void> {
    // The client reconnects by itself; `ready` resynchronizes.
    const subscriber = new Subscriber(this.#store.redis, this.#store.key, this.#onMessage)
    this.#subscriber = subscriber
    judge.acquire()
    try {
      await Promise.all([ready(this.#store.redis), subscriber.start()])
      let stored: Stored | undefined = await this.#store.read()
      while (stored !== undefined) {
        if (isVersion(stored.version)) {
          await this.#learn(stored, true, true)
          break
        }
        if (stored.version !== '') throw new GPT_ERR_EDITION_REFUSED(this.#holder.path, absurd(stored.version))
        this.#observed = { version: '', token: stored.token }
        stored = await this.#put(contentText(this.#holder.current.content), 1)
        if (stored === undefined) this.#serve(this.#holder.build(this.#holder.current.content, 1), this.#observed.token)
      }
    } catch (error) {
      await this.close()
      throw isNamed(error) ? error : this.#notStored(error)
    }
    this.#store.redis.on('ready', this.#resync)
    // Subscribed again after a reconnection (following the client's own resubscription), so
    // what the resync reads is at least as new as every notification missed.
    subscriber.resubscribed(this.#resync)
    this.#phase = 'serving'
    if (this.#wanted.read) this.#kick() // notified while starting
  }

  async close (): Promise<void> {
    if (this.#phase === 'closed') return
    this.#phase = 'closed'
    judge.release()
    this.#store.redis.off('ready', this.#resync)
    await this.#subscriber?.close()
  }

  /** Applies `change` to the latest stored edition with the others queued here, and stores the result. */
  update (change: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ change, resolve, reject })
      this.#kick()
    })
  }

  #kick (): void {
    if (this.#loop === 'running') return
    this.#loop = 'running'
    this.#run().catch((error: unknown) => {
      /* c8 ignore next: #flush and #refresh settle every caller and catch Redis's errors themselves; this keeps a throw no test can cause from ending the process as an unhandled rejection */
      this.#log.error({ address: this.#holder.path, err: error }, 'gpt: shared editions failed')
    }).finally(() => {
      this.#loop = 'idle'
      if (this.#wanted.read || this.#pending.length > 0 || this.#wanted.repair) this.#kick()
    })
  }

  /** One thing at a time: the queued updates (or a repair), else a read wanted since the last store, else done. */
  async #run (): Promise<void> {
    for (;;) {
      if (this.#pending.length > 0 || this.#wanted.repair) {
        // Before any read: a conflict answers with what is stored, and a store serves a newer edition.
        this.#wanted.repair = false
        await this.#flush(this.#pending.splice(0))
        if (this.#base !== undefined) this.#wanted.read = true // a stored edition taken as a base but not stored upon: served by a read
      } else if (this.#wanted.read) {
        this.#wanted.read = false
        await this.#refresh()
      } else return
    }
  }

  /** Stores `batch` applied to the latest edition, by one compare-and-set; on conflict, again on what is stored. */
  async #flush (batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.#store.redis.status !== 'ready') {
        return this.#fail(batch, new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `Redis is ${this.#store.redis.status}`))
      }
      const problem = this.#problem(this.#observed.version)
      let stored: Stored | undefined
      if (problem === undefined) {
        const version = Number(this.#observed.version) + 1
        if (version > MAX_VERSION) {
          return this.#fail(batch, new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `version ${MAX_VERSION} is stored, the highest there is`))
        }
        const composed = this.#compose(batch, this.#base ?? this.#holder.current.content, version)
        if (composed === undefined) return // nothing to store: every change refused
        try {
          stored = await this.#put(composed.text, version)
        } catch (error) {
          return this.#fail(batch, this.#notStored(error))
        }
        if (stored === undefined) {
          let edition: E
          try {
            edition = composed.edition ?? this.#holder.build(composed.content, version)
          } catch (error) {
            this.#refuse(version, this.#observed.token, error) // stored, but not to be served here: left like any refused edition
            return this.#fail(batch, error)
          }
          this.#serve(edition, this.#observed.token)
          for (const { resolve } of batch) resolve() // stored, and served here
          return
        }
      } else {
        try {
          stored = await this.#reseed(problem)
        } catch (error) {
          return this.#fail(batch, this.#notStored(error))
        }
        if (stored === undefined) {
          if (batch.length === 0) return
          continue // the changes, at once, on the edition put back
        }
      }
      await this.#learn(stored, false)
      if (attempt === MAX_ATTEMPTS) {
        return this.#fail(batch, new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `other instances stored first ${MAX_ATTEMPTS} times in a row`))
      }
      await sleep(Math.random() * Math.min(BACKOFF_CAP, BACKOFF_BASE * 2 ** attempt))
    }
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
    this.#serve(version === current.version && content === current.content ? current : this.#holder.build(content, version), this.#observed.token)
    this.#log.warn({ address: this.#holder.path, version }, `gpt: the shared edition ${what}; stored the one served here again, as version ${version}`)
    return undefined
  }

  #fail (batch: readonly Pending[], error: unknown): void {
    for (const pending of batch) this.#reject(pending, error)
  }

  /** Refuses one update: its caller's promise rejects with the named error. */
  #reject (pending: Pending, error: unknown): void {
    publishEdition(this.#holder.path, 'refused', this.#holder.current.version, undefined, error)
    pending.reject(error)
  }

  /**
   * The content `batch` makes of `base`, checked for storing as `version`. A change refused (by its
   * shape, its form, the size of the result) fails its own caller and is left out; the others still
   * apply. Undefined when nothing is left to store.
   */
  #compose (batch: Pending[], base: Content, version: number): Composed<E> | undefined {
    let content = base
    let built: E | undefined
    for (let i = 0; i < batch.length; i++) {
      try {
        const next = this.#holder.apply(batch[i]!.change, content)
        // A new form is checked where it comes, so that a later change cannot hide a refused one.
        if (next.form !== content.form) built = this.#holder.build(next, version)
        content = next
      } catch (error) {
        this.#reject(batch.splice(i--, 1)[0]!, error)
      }
    }
    if (batch.length === 0) return undefined
    try {
      return this.#checked(content, version, built?.content === content ? built : undefined)
    } catch {
      // One of them is refused as a whole: checked one at a time, each on the last that passed.
      let composed: Composed<E> | undefined
      content = base
      for (let i = 0; i < batch.length; i++) {
        try {
          const next = this.#holder.apply(batch[i]!.change, content)
          composed = this.#checked(next, version)
          content = next
        } catch (error) {
          this.#reject(batch.splice(i--, 1)[0]!, error)
        }
      }
      return composed
    }
  }

  /**
   * `content` ready to store: within this.#store.most (storedBytes) and, if its form is not the one served,
   * built (a form may be refused). A change of p or m only cannot be refused once it applies, so
   * its edition is built once stored: the time between reading and storing stays short.
   */
  #checked (content: Content, version: number, built?: E): Composed<E> {
    const text = contentText(content)
    const bytes = Buffer.byteLength(text)
    /* c8 ignore next 3: content within the limits (checked by apply) is never above storedBytes (limits.ts), so no test can reach this; it keeps an edition every instance would refuse from being stored if the two ever disagree */
    if (bytes > this.#store.most) {
      throw new GPT_ERR_EDITION_NOT_STORED(this.#holder.path, `the edition would be ${bytes} bytes, above the ${this.#store.most} bytes every instance reads`)
    }
    const edition = built ?? (content.form === this.#holder.current.content.form ? undefined : this.#holder.build(content, version))
    return { content, text, edition }
  }

  /** Stores `text` as `version` if what was last seen is still stored: answers undefined, or else what is stored. */
  async #put (text: string, version: number): Promise<Stored | undefined> {
    const put = await this.#store.put(text, version, this.#observed)
    if ('conflict' in put) return put.conflict
    this.#observed = put.stored
    this.#known = Math.max(this.#known, version)
    this.#base = undefined
    publishEdition(this.#holder.path, 'stored', version)
    return undefined
  }

  #onMessage = (channel: string, message: string): void => {
    if (channel !== this.#store.key || message === this.#observed.version || this.#phase === 'closed') return
    this.#wanted.read = true
    if (this.#phase === 'serving') this.#kick() // else once started: start reads what is stored itself
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
    if (await this.#learn(stored, true) !== undefined) this.#wanted.repair = true
  }

  /**
   * Takes note of what is stored, and answers the problem if it cannot be built on. A newer edition
   * is served, or (`serve` false, its form the one served) kept as the base of the next store only.
   * An edition this instance refuses is logged once and left (`starting`: thrown).
   */
  async #learn (stored: Stored, serve: boolean, starting = false): Promise<Problem | undefined> {
    const { version, token, content } = stored
    this.#observed = { version, token }
    const problem = this.#problem(version)
    if (problem !== undefined) return problem // a base taken stays: it is the newest edition known, and the one put back
    const base = this.#base
    this.#base = undefined
    const number = Number(version)
    this.#known = number
    if ((number === this.#holder.current.version && token === this.#token) || (number === this.#refused.version && token === this.#refused.token)) return
    try {
      if (typeof content === 'number') {
        throw new GPT_ERR_EDITION_REFUSED(this.#holder.path, `edition ${number} is ${content} bytes, above the ${this.#store.most} an instance reads`)
      }
      const same = this.#sameForm(content)
      if (same !== undefined) {
        // The form served, so what costs (compile, lint) is done: p and m cost their bytes, bounded
        // above, and each message this instance already holds is taken as held, not copied again.
        const { current } = this.#holder
        const messages = reused(same['messages'], [current.content.messages, base?.messages ?? []])
        const next = this.#holder.apply({ prompt: '', messages: [], ...same, ...(messages === undefined ? {} : { messages }), form: undefined }, current.content)
        if (serve) this.#serve(this.#holder.build(next, number), token)
        else this.#base = next
        return
      }
      // Any other form is judged off the event loop first, and built here only if it was built there in time.
      await judge.judge(this.#holder.path, this.#settings, content, number)
      const edition = this.#holder.read(content, number)
      if (number >= this.#holder.current.version) this.#serve(edition, token) // never back, whatever was served while it was judged
    } catch (error) {
      if (starting) throw error
      this.#refuse(number, token, error)
    }
  }

  #refuse (version: number, token: string, error: unknown): void {
    this.#refused = { version, token }
    publishEdition(this.#holder.path, 'refused', version, undefined, error)
    this.#log.error({ address: this.#holder.path, version, err: error }, 'gpt: the shared edition is refused here; serving the last one, and updates store above it')
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

  #serve (edition: E, token: string): void {
    this.#holder.serve(edition)
    this.#token = token
  }

  /** Missing (deleted, flushed, evicted), absurd, or lower than a version seen stored: Redis lost what it held. */
  #problem (version: string): Problem | undefined {
    if (version === '') return 'missing'
    if (!isVersion(version)) return 'absurd'
    return Number(version) < this.#known ? 'lower' : undefined
  }

  #described (problem: Problem): string {
    if (problem === 'missing') return 'was missing (deleted, flushed or evicted)'
    return problem === 'absurd' ? `had ${absurd(this.#observed.version)}` : `had gone back to version ${this.#observed.version}, below version ${this.#known} stored before (a restored backup?)`
  }

  // After a reconnection: missed notifications are read now, and an edition Redis lost is put back.
  #resync = (): void => {
    if (this.#phase === 'closed') return
    this.#wanted.read = true
    this.#kick()
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
