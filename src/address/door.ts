// The one door into an act. A way in other than a plain POST (the MCP bridge's tools/call) enters
// by the address's own POST route, dispatched through the host's router (src/mcp/enter.ts), so Fastify
// runs every hook it runs for `POST <address>` (whatever scope, moment or mechanism added them)
// and the act runs in the route's handler, never beside it. The door hands the route what the way
// in knows and a request cannot say (where its progress goes, its actor), by a token in one header
// field that only the door sets, and learns back whether the address made the answer or a hook of
// the host's did.
import { randomUUID } from 'node:crypto'
import type { Via } from '../diagnostics.ts'
import type { Refused } from './pipeline.ts'

/** The request header field that carries an entry's token. */
export const ENTRY_FIELD = 'fastify-gpt-entry'

/** What a way in hands the route for one act. */
export interface Entry {
  readonly via: Via
  /** The actor as the way in knows it (an MCP client's name): draft §6, records only. */
  readonly actor: string | undefined
  /** Told each progress value of an act with `background` before its hand-off. */
  readonly progress: ((value: unknown) => void) | undefined
  /** Refused before it could be a body (arguments not where the tool puts one): answered as a refusal. */
  readonly refused: Refused | undefined
  /** Hand off to a job at once, as `Prefer: respond-async` asks over HTTP: a call made a task (MCP 2025-11-25). */
  readonly async: boolean
}

/** An entry on its way through the route: `answered` once the address (not a host's hook) answers it. */
interface Passing {
  readonly entry: Entry
  answered: boolean
}

/** The entries of one address on their way in, by token. */
export class Door {
  readonly #passing = new Map<string, Passing>()
  readonly #taken = new WeakMap<object, Passing>()

  /** Opens the door for one entry: its token, for the header field. */
  open (entry: Entry): string {
    const token = randomUUID()
    this.#passing.set(token, { entry, answered: false })
    return token
  }

  /** Closes it: whether the address made the answer. */
  close (token: string): boolean {
    const passing = this.#passing.get(token)
    this.#passing.delete(token)
    return passing?.answered === true
  }

  /** The entry `request` came in by (a request without a known token is a plain POST). */
  entryOf (request: { readonly headers: Readonly<Record<string, unknown>> }): Entry | undefined {
    return this.#find(request)?.entry
  }

  /** Notes that the address answers `request` itself (its act's answer, or its refusal); the entry it came in by, if any. */
  answers (request: { readonly headers: Readonly<Record<string, unknown>> }): Entry | undefined {
    const passing = this.#find(request)
    if (passing === undefined) return undefined
    passing.answered = true
    return passing.entry
  }

  #find (request: { readonly headers: Readonly<Record<string, unknown>> }): Passing | undefined {
    const taken = this.#taken.get(request)
    if (taken !== undefined) return taken
    const token = request.headers[ENTRY_FIELD]
    if (typeof token !== 'string') return undefined
    const passing = this.#passing.get(token)
    if (passing !== undefined) this.#taken.set(request, passing)
    return passing
  }
}
