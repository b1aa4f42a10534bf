// Retries that cannot act twice (draft §5.4: acts are not idempotent "unless a particular address
// specifies otherwise"; docs/idempotency.md): an address with `idempotency` runs an act carrying an
// Idempotency-Key once, keeps its answer with the key and the SHA-256 of the body's bytes, and
// answers a retry with the same bytes from what it kept. The entry installs it as the core's guard.
import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { UNKEPT, type Answer, type Given, type Guard, type Passage } from '../address/guard.ts'
import type { ShareSettings } from '../store/share.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'
import { keyOf, MALFORMED } from './key.ts'
import { LocalKeys, type Claim, type IdempotencySettings, type Keys, type Kept } from './keys.ts'
import { SharedKeys } from './shared.ts'

/** The header field of a kept answer sent again (as the payment APIs that made the header common name it). */
export const REPLAYED = 'idempotent-replayed'

const bare = (status: number, refused: string, headers: Record<string, string> = {}): Given =>
  ({ answer: Object.freeze({ status, headers: Object.freeze(headers), body: '' }), refused })
// draft-ietf-httpapi-idempotency-key-header §2.7: a malformed key is 400, a key reused with
// another body 422, a key whose first request is still being answered 409.
const MALFORMED_KEY = bare(400, 'the idempotency key is malformed')
const MISMATCH = bare(422, 'the idempotency key was used with other bytes')
const AWAY = bare(503, 'the idempotency keys\' store is away', { 'retry-after': '1' })

/** What the entry wires: the guard, and how to let go of its keys when the host closes. */
export interface Installed {
  readonly guard: Guard
  /** Before the host serves: with `share`, marks the store as holding the keys from now on. */
  readonly start: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The option's guard (resolved by resolveIdempotency), or undefined where it is off. With `share`, the keys are in Redis. */
export function installIdempotency (settings: IdempotencySettings | undefined, path: string, share: ShareSettings | undefined, log: FastifyBaseLogger): Installed | undefined {
  if (settings === undefined) return undefined
  const warn = (message: string): void => { log.warn({ address: path }, message) }
  const keys: Keys = share === undefined ? new LocalKeys(settings) : new SharedKeys(share.redis, `${share.key}:idempotency:`, settings, warn)
  return { guard: guard(keys), start: async () => { await keys.start?.() }, close: () => keys.close() }
}

/** The most bytes of an answer kept: as many as a shared job's result. */
export const KEPT_BYTES = 1_048_576

function guard (keys: Keys): Guard {
  /** The key and fingerprint a request names, MALFORMED, or undefined without a key. */
  const named = (headers: Readonly<Record<string, unknown>>, bytes: Buffer | undefined, via: string): { key: string, fingerprint: string } | typeof MALFORMED | undefined => {
    const key = keyOf(headers[IDEMPOTENCY_KEY] as string | string[] | undefined)
    if (key === undefined) return undefined
    // no bytes kept (no parser read the body) leave nothing for the key to name
    if (key === MALFORMED || bytes === undefined) return MALFORMED
    // A call and a POST keep their answers apart under one key.
    return { key: `${via}:${key}`, fingerprint: createHash('sha256').update(bytes).digest('base64url') }
  }
  return {
    wants: (headers) => headers[IDEMPOTENCY_KEY] !== undefined,
    pass (headers, bytes, via, client) {
      const name = named(headers, bytes, via)
      if (name === undefined) return undefined
      if (name === MALFORMED) return MALFORMED_KEY
      const claim = keys.claim(name.key, name.fingerprint, client)
      return claim instanceof Promise ? claim.then(passage) : passage(claim)
    },
    kept (headers, bytes, via) {
      const name = named(headers, bytes, via)
      if (name === undefined || name === MALFORMED) return undefined
      const kept = keys.kept(name.key, name.fingerprint)
      return kept instanceof Promise ? kept.then(replayed) : replayed(kept)
    }
  }
}

/** A kept answer as a retry gets it: marked replayed. */
const replay = (kept: Kept): Answer => ({ ...kept, headers: { ...kept.headers, [REPLAYED]: 'true' } })
const replayed = (kept: Kept | 'away' | undefined): Given | undefined =>
  kept === undefined ? undefined : kept === 'away' ? AWAY : { answer: replay(kept) }

function passage (claim: Claim): Passage {
  switch (claim.kind) {
    case 'claimed': {
      const { ticket } = claim
      const bounded = (answer: Answer): Answer => Buffer.byteLength(answer.body) > KEPT_BYTES ? UNKEPT : answer
      // An amend before the answer (a job that ended before its handle was sent) is what is kept.
      let told = false
      let amended: Answer | undefined
      return {
        ticket: {
          done: (answer) => {
            told = true
            ticket.done(bounded(amended ?? answer))
          },
          amend: (answer) => {
            if (told) ticket.amend(bounded(answer))
            else amended = answer
          },
          free: () => { ticket.free() }
        }
      }
    }
    case 'done': return { answer: replay(claim.kept) }
    case 'mismatch': return MISMATCH
    case 'running': return bare(409, 'the act under the idempotency key is still running', { 'retry-after': String(claim.retryAfter) })
    default: return bare(503, claim.kind === 'full' ? 'maxKeys or maxBytes are held, or the client\'s share of them' : 'the idempotency keys\' store is away', { 'retry-after': String(claim.retryAfter) })
  }
}
