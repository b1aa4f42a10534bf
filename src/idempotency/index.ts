// Retries that cannot act twice (draft §5.4: acts are not idempotent "unless a particular address
// specifies otherwise"; docs/idempotency.md): an address with `idempotency` runs an act carrying an
// Idempotency-Key once, keeps its answer with the key and the SHA-256 of the body's bytes, and
// answers a retry with the same bytes from what it kept. The entry installs it as the core's guard.
import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { UNKEPT, type Guard, type Passage } from '../address/guard.ts'
import type { ShareSettings } from '../address/share.ts'
import { keyOf, MALFORMED } from './key.ts'
import { LocalKeys, type Claim, type IdempotencySettings, type Keys } from './keys.ts'
import { SharedKeys } from './shared.ts'

export const HEADER = 'idempotency-key'
/** The header field of a kept answer sent again (as the payment APIs that made the header common name it). */
export const REPLAYED = 'idempotent-replayed'

const bare = (status: number, refused: string, headers: Record<string, string> = {}): Passage =>
  ({ answer: Object.freeze({ status, headers: Object.freeze(headers), body: '' }), refused })
// draft-ietf-httpapi-idempotency-key-header §2.7: a malformed key is 400, a key reused with
// another body 422, a key whose first request is still being answered 409.
const MALFORMED_KEY = bare(400, 'the idempotency key is malformed')
const MISMATCH = bare(422, 'the idempotency key was used with other bytes')

/** What the entry wires: the guard, and how to let go of its keys when the host closes. */
export interface Installed {
  readonly guard: Guard
  readonly close: () => Promise<void>
}

/** The option's guard (resolved by resolveIdempotency), or undefined where it is off. With `share`, the keys are in Redis. */
export function installIdempotency (settings: IdempotencySettings | undefined, path: string, share: ShareSettings | undefined, log: FastifyBaseLogger): Installed | undefined {
  if (settings === undefined) return undefined
  const warn = (message: string): void => { log.warn({ address: path }, message) }
  const keys: Keys = share === undefined ? new LocalKeys(settings) : new SharedKeys(share.redis, `${share.key}:idempotency:`, settings, warn)
  return { guard: guard(keys), close: () => keys.close() }
}

/** The most bytes of an answer kept: as many as a shared job's result. */
export const KEPT_BYTES = 1_048_576

function guard (keys: Keys): Guard {
  return {
    wants: (headers) => headers[HEADER] !== undefined,
    pass (headers, bytes, via) {
      const key = keyOf(headers[HEADER] as string | string[] | undefined)
      if (key === undefined) return undefined
      // no bytes kept (no parser read the body) leave nothing for the key to name
      if (key === MALFORMED || bytes === undefined) return MALFORMED_KEY
      const fingerprint = createHash('sha256').update(bytes).digest('base64url')
      // A call and a POST answer in two shapes: each keeps its own under the key.
      const claim = keys.claim(`${via}:${key}`, fingerprint)
      return claim instanceof Promise ? claim.then(passage) : passage(claim)
    }
  }
}

function passage (claim: Claim): Passage {
  switch (claim.kind) {
    case 'claimed': {
      const { ticket } = claim
      return { ticket: { done: (answer) => { ticket.done(Buffer.byteLength(answer.body) > KEPT_BYTES ? UNKEPT : answer) }, free: () => { ticket.free() } } }
    }
    case 'done': return { answer: { ...claim.kept, headers: { ...claim.kept.headers, [REPLAYED]: 'true' } } }
    case 'mismatch': return MISMATCH
    case 'running': return bare(409, 'the act under the idempotency key is still running', { 'retry-after': String(claim.retryAfter) })
    default: return bare(503, claim.kind === 'full' ? 'maxKeys idempotency keys are held' : 'the idempotency keys\' store is away', { 'retry-after': String(claim.retryAfter) })
  }
}
