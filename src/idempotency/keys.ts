// The keys an address holds, in this process: what a key has come to (an act running, an answer
// kept) and the one move each request makes on it. The shared keys (shared.ts) make the same moves
// in Redis, atomically; test/idempotency/machine.test.ts holds both to one model.
import type { Answer, Ticket } from '../address/guard.ts'
import type { IdempotencySettings } from '../address/options.ts'

/** An answer kept for a key: what a retry gets again (its status, the header fields the act set, its body). */
export type Kept = Answer

/**
 * What claiming a key comes to: the act is this request's to run (`claimed`), the answer kept for
 * it (`done`), still running elsewhere (`running`), the key taken by other bytes (`mismatch`), or
 * no room to hold another key (`full`) or no store to ask (`away`), for `retryAfter` seconds.
 */
export type Claim =
  | { readonly kind: 'claimed', readonly ticket: Ticket }
  | { readonly kind: 'done', readonly kept: Kept }
  | { readonly kind: 'running' | 'full' | 'away', readonly retryAfter: number }
  | { readonly kind: 'mismatch' }

/** Where an address's keys live: in this process, or shared through Redis. */
export interface Keys {
  /** `client`: who claims (`request.ip`), each holding at most a quarter of what the keys may hold. */
  claim (key: string, fingerprint: string, client: string): Claim | Promise<Claim>
  /** The answer kept for `key` where these bytes were its act's; undefined otherwise; 'away' where the store cannot be read in time. */
  kept (key: string, fingerprint: string): Kept | 'away' | undefined | Promise<Kept | 'away' | undefined>
  /** Before the first claim (shared keys: the store's epoch). */
  start? (): Promise<void>
  close (): Promise<void>
}

export type { IdempotencySettings }

/** A client's share of a bound: a quarter, at least one. */
export const clientShare = (bound: number): number => Math.max(1, Math.floor(bound / 4))

/** Seconds to wait before asking again about a key whose act is running. */
export const RUNNING_RETRY = 1

interface Entry {
  readonly fingerprint: string
  readonly client: string
  kept: Kept | undefined
  /** The kept answer's size, as counted against maxBytes. */
  bytes: number
  /** When a kept answer goes; Infinity while running. */
  expires: number
}

/** What one client holds: keys (running or kept), bytes of kept answers, and its kept answers in the order they expire. */
interface Held { keys: number, bytes: number, readonly kept: Map<string, Entry> }

/** An answer's size as held: its body and its header fields. */
export function sizeOf (kept: Kept): number {
  let bytes = Buffer.byteLength(kept.body)
  for (const [name, value] of Object.entries(kept.headers)) bytes += name.length + Buffer.byteLength(Array.isArray(value) ? value.join(', ') : value)
  return bytes
}

/**
 * Keys in this process. Answers are kept in the order their acts ended, which with one `keep` is
 * the order they expire in, so expiry looks only at the oldest. Running acts sit apart.
 */
export class LocalKeys implements Keys {
  readonly #settings: IdempotencySettings
  readonly #now: () => number
  readonly #entries = new Map<string, Entry>()
  /** Kept answers in the order they expire. */
  readonly #kept = new Map<string, Entry>()
  readonly #clients = new Map<string, Held>()
  #bytes = 0

  constructor (settings: IdempotencySettings, now: () => number = Date.now) {
    this.#settings = settings
    this.#now = now
  }

  claim (key: string, fingerprint: string, client: string): Claim {
    this.#expire()
    const entry = this.#entries.get(key)
    if (entry !== undefined) {
      if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' }
      return entry.kept === undefined ? { kind: 'running', retryAfter: RUNNING_RETRY } : { kind: 'done', kept: entry.kept }
    }
    // One client holds at most a quarter of the keys and of the bytes: it cannot refuse another's.
    const { maxKeys, maxBytes } = this.#settings
    const held = this.#clients.get(client) ?? { keys: 0, bytes: 0, kept: new Map() }
    const full = this.#entries.size >= maxKeys || this.#bytes >= maxBytes
    const mine = held.keys >= clientShare(maxKeys) || held.bytes >= clientShare(maxBytes)
    // a place frees when the oldest kept answer of what is full goes: the address's, or the client's
    if (full || mine) return { kind: 'full', retryAfter: Math.max(full ? this.#retryAfter(this.#kept) : 0, mine ? this.#retryAfter(held.kept) : 0) }
    const claimed: Entry = { fingerprint, client, kept: undefined, bytes: 0, expires: Infinity }
    this.#entries.set(key, claimed)
    held.keys++
    this.#clients.set(client, held)
    let told = false
    return {
      kind: 'claimed',
      ticket: {
        done: (kept) => {
          if (told) return
          told = true
          claimed.kept = kept
          this.#count(claimed, sizeOf(kept))
          claimed.expires = this.#now() + this.#settings.keep
          this.#kept.set(key, claimed)
          held.kept.set(key, claimed)
        },
        amend: (kept) => {
          if (claimed.kept === undefined || this.#entries.get(key) !== claimed) return
          claimed.kept = kept
          this.#count(claimed, sizeOf(kept) - claimed.bytes)
        },
        free: () => {
          if (told) return
          told = true
          this.#forget(key, claimed)
        }
      }
    }
  }

  /** Counts `change` bytes of an entry's kept answer, for it and its client. */
  #count (entry: Entry, change: number): void {
    entry.bytes += change
    this.#bytes += change
    const held = this.#clients.get(entry.client)
    if (held !== undefined) held.bytes += change
  }

  #forget (key: string, entry: Entry): void {
    this.#entries.delete(key)
    this.#kept.delete(key)
    this.#bytes -= entry.bytes
    const held = this.#clients.get(entry.client)
    if (held === undefined) return
    held.keys--
    held.bytes -= entry.bytes
    held.kept.delete(key)
    if (held.keys === 0) this.#clients.delete(entry.client)
  }

  kept (key: string, fingerprint: string): Kept | undefined {
    this.#expire()
    const entry = this.#entries.get(key)
    return entry?.fingerprint === fingerprint ? entry.kept : undefined
  }

  async close (): Promise<void> {
    this.#entries.clear()
    this.#kept.clear()
    this.#clients.clear()
    this.#bytes = 0
  }

  #expire (): void {
    const now = this.#now()
    for (const [key, entry] of this.#kept) {
      if (entry.expires > now) return
      this.#forget(key, entry)
    }
  }

  /** Seconds until the oldest of `kept` goes (and makes room), at least 1. */
  #retryAfter (kept: ReadonlyMap<string, Entry>): number {
    const oldest = kept.values().next()
    return oldest.done === true ? RUNNING_RETRY : Math.max(1, Math.ceil((oldest.value.expires - this.#now()) / 1000))
  }
}
