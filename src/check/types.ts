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

/** `gate`: every answer the check had came from the host's gate (a POST answered 401 or 403), so it judged nothing. */
export type Outcome = 'pass' | 'fail' | 'skip' | 'gate'

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
  readonly counts: { readonly pass: number, readonly fail: number, readonly skip: number, readonly gate: number }
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
  /** When the host's gate answered a POST 401 or 403: how often, and what would pass it. */
  readonly gate?: GateReport
  /** What the arrival's `l` names, followed hop by hop (only when it names any and `follow` was given). */
  readonly links?: LinkGraph
  /** What `fastify-gpt lint` says of the form `s`: advice for its author, never a failed check. */
  readonly form?: FormSummary
  /** With `actor`: what the decoder wrote, what the address did with it, and why it refused what it refused. */
  readonly actor?: ActorReport
  /** With `mcp`: the address's tool on the MCP bridge, and what sending the same bodies both ways showed. */
  readonly mcp?: McpReport
}

/**
 * POSTs the host's gate (auth in front of the address) answered 401 or 403 before the address
 * judged them. With none reaching the address, the acts were not checked (`Report.unfinished`).
 */
export interface GateReport {
  /** POSTs it answered, and POSTs that reached the address (answered 204, or acted on). */
  readonly gated: number
  readonly through: number
  /** The status of the first it answered, and that answer's WWW-Authenticate (cut past 200 characters). */
  readonly status: number
  readonly challenge?: string
  /** The header that would pass it, from the challenge's first scheme: `Authorization: Bearer …`. */
  readonly header?: string
  /** The names of the headers given for acts (`headers`, `--header`), which it did not let through. */
  readonly sent?: readonly string[]
}

/** An MCP bridge serving the address as a tool, over Streamable HTTP (docs/checking.md, "An MCP bridge"). */
export interface McpBridge {
  /** A transport to the bridge's endpoint: every JSON-RPC request is a POST to it. */
  readonly send: Send
  /** The address's path: the tool is the one whose `_meta["fastify-gpt/address"]` is it, else the one named from it. */
  readonly path: string
  /** The endpoint, as the report names it. */
  readonly url: string
}

export interface McpReport {
  readonly url: string
  /** The protocol revision `initialize` answered with. */
  readonly protocolVersion?: string
  /** The address's tool; `by`: found by `_meta["fastify-gpt/address"]` or by its name from the path; `wrapped`: the body is called as `arguments.value` (absent when there was no s to compare with). */
  readonly tool?: { readonly name: string, readonly by: 'address' | 'name', readonly wrapped?: boolean }
  /** Bodies sent both as a POST and as a tools/call: those s refuses, and those it admits (acts, with `acts`). */
  readonly sent: { readonly refused: number, readonly admitted: number }
  /** Bodies that one of the two acted on and the other refused. */
  readonly disagreed: number
  /** The first refused call's `result`, as the bridge wrote it (made printable): every other must be the same bytes. */
  readonly refusal?: string
}

/** A body the decoder wrote that the address refused, and why, as far as the checker can tell. */
export interface Refusal {
  /** The body, made printable and cut past 240 characters. */
  readonly body: string
  /** Why: `not strict JSON (syntax)`, `s refuses it at /properties/note/maxLength`, `s admits it`. */
  readonly why: string
  /** The lint finding (for the decoder, or for every actor) that foresaw it; absent: unexplained. */
  readonly finding?: { readonly rule: string, readonly pointer: string, readonly message: string }
}

/**
 * A decoder's bodies, how many walks were dropped at the token bound, and those its sampler gave
 * up on (with the first one's words); or why the converter refused the form.
 */
export type Walked = { readonly texts: string[], readonly dropped: number, readonly gaveUp?: GaveUp } | { readonly error: string }
export interface GaveUp { readonly count: number, readonly why: string }

/** The decoders that can write the acts: XGrammar, and llama.cpp (its own converter and sampler). */
export type ActorName = 'xgrammar' | 'llama-cpp'

export interface ActorReport {
  readonly decoder: ActorName
  /** The converter run, with its version: `@mlc-ai/web-xgrammar 0.1.27`, `@fugood/llama.node 1.7.15 (llama.cpp b10257, 22dc605c4)`. */
  readonly version: string
  /** The converter and version lint's profile for this decoder describes. */
  readonly profile: string
  /** Why the converter wrote nothing, in its own words, when it refused s. */
  readonly refusedForm?: string
  /** Bodies written; walks dropped for running past the token bound. */
  readonly written: number
  readonly dropped: number
  /** Walks the sampler gave up on (llama.cpp's took a token its grammar then refused), with the first one's words. */
  readonly gaveUp?: GaveUp
  /** Bodies acted on, refused, not sent (the request budget or time limit spent), and answered by the host's gate. */
  readonly accepted: number
  readonly refused: number
  readonly unanswered: number
  readonly gated: number
  readonly refusals: readonly Refusal[]
}

/** Where links lead (Appendix B, "Composition"; docs/links.md). Lists keep at most 100 entries; `counts` are whole. */
export interface LinkGraph {
  /** Hops followed from the address. */
  readonly depth: number
  /** Every address read, in order, with the URLs on its origin that its `l` names. */
  readonly addresses: readonly { readonly url: string, readonly depth: number, readonly links: readonly string[] }[]
  /** Links whose target is not an address: not http(s), or its plain GET is not an arrival. */
  readonly notAddresses: readonly { readonly from: string, readonly href: string, readonly why: string }[]
  /** Links to another origin: named, never followed. */
  readonly offOrigin: readonly { readonly from: string, readonly href: string }[]
  /** Addresses that lead back to themselves through links: each set reaches every other in it. */
  readonly loops: readonly (readonly string[])[]
  readonly counts: {
    readonly addresses: number
    readonly notAddresses: number
    readonly offOrigin: number
    /** Addresses named past `depth`, not read. */
    readonly beyond: number
    /** Targets not read: the run's budget or time ran out, or an arrival too large to read. */
    readonly unread: number
  }
  /** Why the following stopped early, if it did. */
  readonly stopped?: string
}

/** How to follow the links of the address checked. */
export interface Follow {
  /** The address's URL: links are resolved against it, and only those on its origin are followed. */
  readonly url: string | URL
  /** Hops to follow. Default 2; 0 reads none. */
  readonly depth?: number
  /** A transport to another address on the same origin. */
  readonly sendTo: (url: URL) => Send
}

export interface FormSummary {
  readonly errors: number
  readonly warnings: number
  /**
   * Each decoder profile: whether its runtimes refuse the form, loosen it, or enforce it exactly,
   * and the converter and version the profile describes.
   */
  readonly runtimes: ReadonlyArray<RuntimeVerdict & { readonly version: string }>
}

export interface CheckOptions {
  /**
   * Also send this many values that s admits, each an act with its effects; with `actor`, this
   * many bodies the decoder writes (at most 1000). Default 0.
   */
  readonly acts?: number
  /**
   * A real constrained decoder writes the acts: `'xgrammar'` (needs the optional peer dependency
   * @mlc-ai/web-xgrammar) or `'llama-cpp'` (llama.cpp's own converter and grammar sampler, with a
   * model of random weights made for the run; needs the optional peer dependency
   * @fugood/llama.node). The report's `actor` says how many it acted on and why it refused others.
   */
  readonly actor?: ActorName
  /** With `actor: 'llama-cpp'`: a GGUF model file to sample with, in place of the one made for the run. */
  readonly model?: string
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
  /** Follow the addresses the arrival's `l` names (GETs only), within the same budget and time. */
  readonly follow?: Follow
  /** Told of every wait longer than a second (a 429 waited out, a slow answer). */
  readonly progress?: (message: string) => void
  /**
   * Also check that the MCP bridge serving the address agrees with its POST: its tool's inputSchema
   * is s, and the same bodies sent as POST and as tools/call are acted on and refused alike.
   */
  readonly mcp?: McpBridge
}
