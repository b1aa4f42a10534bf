// A stage between judging an act and running it, which the plugin entry may set from a capability
// of its own (src/idempotency/): for an accepted act it answers in the act's stead, or lets it run
// and is told the answer. The core only calls it: the capability imports the core, never the reverse.
import type { Via } from '../diagnostics.ts'

/** An answer as the core sends it: a status, header fields, a body ('' for none). */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[]>>
  readonly body: string
}

/** What the request that runs the act tells the guard once it is answered. */
export interface Ticket {
  /** The act ran and this was its answer. */
  done (answer: Answer): void
  /**
   * The act's answer became another: a job's handle, once the job has ended, becomes the job's
   * result, so that a retry is answered after the job is forgotten too.
   */
  amend (answer: Answer): void
  /** The act never ran (refused for maxJobs). */
  free (): void
}

/**
 * The guard's word on one accepted act: run it as ever (undefined), answer this instead (`refused`:
 * why, for operators, where the act is refused rather than answered), or run it and tell the ticket.
 */
export type Passage = undefined | Given | { readonly ticket: Ticket }

/** An answer in the act's stead: `refused` says why, for operators, where the act is refused rather than answered. */
export interface Given { readonly answer: Answer, readonly refused?: string }

export interface Guard {
  /** Whether the guard will read this request's body bytes, so that the parser keeps them. */
  wants (headers: Readonly<Record<string, unknown>>): boolean
  /** `client`: who asks (`request.ip`), for what one client may hold. */
  pass (headers: Readonly<Record<string, unknown>>, bytes: Buffer | undefined, via: Via, client: string): Passage | Promise<Passage>
  /**
   * The answer kept for a request whose key and bytes an act already ran with: given again before
   * the form (or If-Match) judges them, since those bytes were accepted once, whatever the form
   * has become (or a refusal, where the keys cannot be read in time). Undefined for anything else,
   * which goes through the pipeline as ever.
   */
  kept (headers: Readonly<Record<string, unknown>>, bytes: Buffer | undefined, via: Via): Given | undefined | Promise<Given | undefined>
}

/**
 * The answer a kept act comes to when the address did not make it: the act answered the request by
 * itself, or its answer was past what is kept. The act ran; a retry is told it failed.
 */
export const UNKEPT: Answer = Object.freeze({ status: 500, headers: Object.freeze({}), body: '' })

/** The ticket of a request whose act runs under a guard, for jobs to amend its answer. */
const tickets = new WeakMap<object, Ticket>()

export function holdTicket (request: object, ticket: Ticket): void {
  tickets.set(request, ticket)
}

export function ticketOf (request: object): Ticket | undefined {
  return tickets.get(request)
}

/** Requests whose act never ran though they were let through (maxJobs): their key is freed. */
const unrun = new WeakSet<object>()

export function markUnrun (request: object): void {
  unrun.add(request)
}

export function wasUnrun (request: object): boolean {
  return unrun.has(request)
}
