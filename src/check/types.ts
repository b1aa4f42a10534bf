// The checker's vocabulary: what a check sends, what comes back and what it concludes. Nothing
// here knows HTTP or Fastify: a transport is any function from a request to a response.
import type { RuntimeVerdict } from '../lint/types.ts'

export interface Request {
  readonly method: 'GET' | 'POST'
  /** Lower-case names. Only these are sent (a transport adds what HTTP itself needs, as Host). */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Uint8Array
  /** Sent with Transfer-Encoding: chunked, without Content-Length. */
  readonly chunked?: boolean
}

export interface Response {
  readonly status: number
  /** Lower-case names; a repeated field is joined with ', '. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /**
   * Set when the body did not come in full: it was over the bytes the checker reads, the
   * connection closed before it ended, or it was not complete in time. `body` holds what came.
   */
  readonly cut?: string
}

/** One round trip to the address under test; rejects only when no answer came at all. */
export type Send = (request: Request) => Promise<Response>

export type Level = 'MUST' | 'SHOULD' | 'MAY'

export type Outcome = 'pass' | 'fail' | 'skip'

/** A request and its answer, as a report shows them: bodies cut short and made printable. */
export interface Exchange {
  readonly request: {
    readonly method: string
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
    readonly bytes: number
    readonly chunked: boolean
  }
  /** Absent when no answer came: `unanswered` says why. */
  readonly response?: {
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
    /** Why the body is not all there (see Response.cut). */
    readonly cut?: string
  }
  readonly unanswered?: string
}

export interface CheckResult {
  /** Stable: `5.2-duplicate`; the draft section comes first. */
  readonly id: string
  readonly section: string
  readonly level: Level
  readonly title: string
  readonly outcome: Outcome
  /** Why it failed or was skipped, in a sentence. */
  readonly detail?: string
  /** On failure: what was sent and what came back. */
  readonly exchanges?: readonly Exchange[]
}

export interface Report {
  readonly target: string
  readonly draft: 'draft-ferguson-gpt-00'
  /** No MUST failed (with `strict`, no SHOULD either). */
  readonly ok: boolean
  readonly strict: boolean
  readonly counts: { readonly pass: number, readonly fail: number, readonly skip: number }
  /** Requests sent, retries after a 429 included. */
  readonly requests: number
  /** 429 answers met (each waited out, as Retry-After asked, or given up on). */
  readonly rateLimited: number
  readonly results: readonly CheckResult[]
  /**
   * What the checker could not do, in a sentence, when it could not finish: the address could not
   * be reached, the arrival was too large to read, the time limit ran out. Checks it could not
   * run are skipped and say why; `fastify-gpt check` exits 2 unless a MUST failed.
   */
  readonly unfinished?: string
  /** What `fastify-gpt lint` says of the form `s`: advice for its author, never a failed check. */
  readonly form?: FormSummary
}

export interface FormSummary {
  readonly errors: number
  readonly warnings: number
  /** Each decoder profile: whether its runtimes refuse the form, loosen it, or enforce it exactly. */
  readonly runtimes: readonly RuntimeVerdict[]
}

export interface CheckOptions {
  /** Also send this many values that s admits, each an act with its effects. Default 0. */
  readonly acts?: number
  /** Most requests to send, retries included. Default 200. */
  readonly maxRequests?: number
  /** Milliseconds between two requests. Default 0. */
  readonly interval?: number
  /** Longest Retry-After (seconds) worth waiting for; a longer one ends that request. Default 60. */
  readonly maxWait?: number
  /** Size in bytes of the bodies the address must refuse for their size alone. Default 10 MiB. */
  readonly bodySize?: number
  /** A SHOULD failure also makes the report not ok. */
  readonly strict?: boolean
  /** Seed of the value generator, so that a run can be repeated. Default 1. */
  readonly seed?: number
  /** How to wait (tests count waits instead of waiting). */
  readonly sleep?: (ms: number) => Promise<void>
  /**
   * Headers sent with every act (POST), e.g. `{ authorization: 'Bearer …' }` for acts behind
   * auth; never with a GET (draft §3.1: the arrival needs none). Never shown in a report.
   */
  readonly headers?: Readonly<Record<string, string>>
  /** Seconds the whole run may take; past it, the checks left are skipped. Default 120. */
  readonly timeLimit?: number
  /** Milliseconds the independent validator may take on one value. Default 5000. */
  readonly judgeTimeout?: number
  /** Told of every wait longer than a second (a 429 waited out, a slow answer). */
  readonly progress?: (message: string) => void
}
