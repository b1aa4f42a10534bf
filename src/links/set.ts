import { GPT_ERR_LINK_UNRESOLVED } from '../errors.ts'
import { firstSentence } from '../sentence.ts'
import { linkHeader } from './header.ts'
import type { Link, Target } from './option.ts'

/** An address on this host as a link sees it: where it is, its prompt now, and word of each new edition. */
export interface Linkable {
  readonly path: string
  readonly prompt: string
  /** Calls `listener` after each edition the address serves. */
  watch (listener: () => void): void
}

/** Where the addresses of one host are found, and what else is routed there (for a better message). */
export interface Host {
  find (path: string): Linkable | undefined
  routed (path: string): boolean
  paths (): readonly string[]
}

/** `l` and the `Link` header it is mirrored in. */
export interface Named {
  readonly member: readonly Link[]
  readonly header: string
}

/**
 * The links of one address: fixed when it is registered, resolved when the host is ready (every
 * address is registered by then), then described anew whenever an address they name serves a new
 * edition. Its arrival reads `named` when it is built; before the host is ready it names nothing,
 * and nothing is served before then.
 */
export class LinkSet {
  readonly targets: readonly Target[]
  readonly #path: string
  #found: ReadonlyMap<string, Linkable> = new Map()
  #named: Named | undefined

  constructor (targets: readonly Target[], path: string) {
    this.targets = targets
    this.#path = path
  }

  get named (): Named | undefined { return this.#named }

  /**
   * Finds every link's address on `host`, or throws GPT_ERR_LINK_UNRESOLVED naming the first one
   * missing; then calls `changed` whenever one of them serves an edition that changes what the
   * links say.
   */
  resolve (host: Host, changed: () => void): void {
    this.#found = findAll(this.targets, host, this.#path)
    this.#named = this.#describe()
    for (const address of new Set(this.#found.values())) {
      let prompt = address.prompt
      address.watch(() => {
        // Only a target's prompt says anything here: an edition changing its messages or its form
        // (an append, most often) costs each address naming it one comparison.
        if (address.prompt === prompt) return
        prompt = address.prompt
        const named = this.#describe()
        if (named.header === this.#named?.header && JSON.stringify(named.member) === JSON.stringify(this.#named.member)) return
        this.#named = named
        changed()
      })
    }
  }

  #describe (): Named {
    const member = this.targets.map((target) => link(target, this.#found.get(target.href)?.prompt))
    return Object.freeze({ member: Object.freeze(member), header: linkHeader(member) })
  }
}

/** Each local target's address, or a named error for the first that has none. */
export function findAll (targets: readonly Target[], host: Host, path: string): ReadonlyMap<string, Linkable> {
  const found = new Map<string, Linkable>()
  for (const target of targets) {
    if (!target.local) continue
    const address = host.find(target.href)
    if (address === undefined) {
      const what = host.routed(target.href) ? 'a route that is not a fastify-gpt address' : 'nothing'
      const known = host.paths().filter((known) => known !== path)
      throw new GPT_ERR_LINK_UNRESOLVED(path, `${target.at}: ${target.href} is ${what} (addresses here: ${known.length === 0 ? 'none' : known.join(', ')})`)
    }
    found.set(target.href, address)
  }
  return found
}

/** One member of `l`: a local target's `p` from its prompt now, another host's as its author wrote it. */
export function link (target: Target, prompt: string | undefined): Link {
  const p = target.local ? (prompt === undefined ? undefined : firstSentence(prompt)) : target.p
  return Object.freeze({ href: target.href, ...(p === undefined ? {} : { p }), ...(target.rel === undefined ? {} : { rel: target.rel }) })
}
