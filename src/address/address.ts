import type { ValidateFunction } from 'ajv/dist/2020.js'
import type { FastifyBaseLogger } from 'fastify'
import { publishEdition } from '../diagnostics.ts'
import { buildArrival, type Arrival } from './arrival.ts'
import { LocalEditions, type Editions, type Holder, type Versioned } from './editions/local.ts'
import { portable } from './editions/judge.ts'
import { SharedEditions } from './editions/shared.ts'
import { GPT_ERR_FORM_NOT_JSON, GPT_ERR_OPTION_INVALID, GPT_ERR_OPTION_UNKNOWN } from '../errors.ts'
import { compileForm } from '../form/compile.ts'
import type { RuntimeVerdict } from '../lint/types.ts'
import { checkStoredText, type Limits } from '../limits.ts'
import { resolveContent, type Content, type GptAddress, type Settings, type Update } from './options.ts'
import { isThenable } from './settle.ts'

/**
 * One version of an address: its content, the validator compiled from that very form and the
 * arrival serialized from it. Built whole before it is used, never changed after.
 */
export interface Edition extends Versioned {
  readonly validate: ValidateFunction
  readonly arrival: Arrival
  /** Lint's word on the form (who can act), asked once per form. */
  readonly runtimes: readonly RuntimeVerdict[]
}

/**
 * Builds an edition whose content is already checked against the limits (resolveContent): the
 * costly steps below are then bounded by the limits, whatever numbers the form holds.
 */
function buildEdition (content: Content, settings: Settings, version: number, catalog: string | undefined, previous?: Edition): Edition {
  // Most updates change p or m only: the form's validator, compiled once, serves on, and lint,
  // which belongs to the form, is not asked again (nor logs again).
  const same = previous !== undefined && sameForm(previous.content.form, content.form)
  const validate = same ? previous.validate : compileForm(content.form, settings.path, { allErrors: settings.explain, limits: settings.limits })
  const runtimes = same ? previous.runtimes : settings.review?.(content.form) ?? []
  return Object.freeze({ version, content, validate, runtimes, arrival: buildArrival(content, settings, runtimes, catalog) })
}

/**
 * The content of a stored edition (JSON text from Redis, which whoever can write the key
 * controls), checked against the limits before it is parsed and as it is copied: this costs at
 * most what the limits allow, and throws a named error past them. What is left to build an
 * edition of it (compile, lint, arrival) is bounded by the limits too.
 */
export function storedContent (text: string, version: number, path: string, limits: Limits): Content {
  checkStoredText(text, limits, path, version)
  let stored: unknown
  try {
    stored = JSON.parse(text)
  } catch {
    throw new GPT_ERR_FORM_NOT_JSON(path, `the stored edition ${version} is not JSON`)
  }
  checkChange(stored, path)
  return resolveContent(stored, undefined, path, limits)
}

const sameForm = (a: object, b: object): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

/**
 * The live address. Requests read `current` once and use that edition throughout; an update
 * replaces it with one assignment, so no request sees a mix of old and new.
 */
export class Address implements GptAddress, Holder<Edition> {
  readonly path: string
  current: Edition
  readonly #settings: Settings
  /** Local until `share` takes the editions shared through Redis. */
  #editions: Editions = new LocalEditions(this)
  readonly #watchers: Array<() => void> = []
  /** The Link field value naming the host's API catalog, once the host is ready and serves one. */
  #catalog: string | undefined

  constructor (settings: Settings) {
    this.path = settings.path
    this.#settings = settings
    this.current = buildEdition(settings.content, settings, 0, undefined)
    publishEdition(this.path, 'built', 0, this.current.arrival.json.etag)
  }

  get form (): Content['form'] { return this.current.content.form }
  get prompt (): string { return this.current.content.prompt }
  get messages (): Content['messages'] { return this.current.content.messages }
  get etag (): string { return this.current.arrival.json.etag }

  /** Takes the edition shared through Redis (or shares this one as the first); registration waits for it. */
  async share (log: FastifyBaseLogger): Promise<void> {
    if (this.#settings.share === undefined) return
    const shared = new SharedEditions(this.#settings.share, this, log, portable(this.#settings))
    await shared.start()
    this.#editions = shared
  }

  async close (): Promise<void> {
    await this.#editions.close()
  }

  update (change: Update): void
  update (change: Update): Promise<void>
  update (change: Update): void | Promise<void> {
    return this.#editions.update(change)
  }

  apply (change: unknown, base: Content): Content {
    const resolved = typeof change === 'function' ? (change as (current: Content) => unknown)(base) : change
    checkChange(resolved, this.path)
    return resolveContent(resolved, base, this.path, this.#settings.limits)
  }

  build (content: Content, version: number): Edition {
    return buildEdition(content, this.#settings, version, this.#catalog, this.current)
  }

  read (text: string, version: number): Edition {
    return buildEdition(storedContent(text, version, this.path, this.#settings.limits), this.#settings, version, this.#catalog, this.current)
  }

  serve (edition: Edition): void {
    this.current = edition
    publishEdition(this.path, 'built', edition.version, edition.arrival.json.etag)
    for (const watcher of this.#watchers) watcher()
  }

  /** Calls `watcher` after each edition served: the addresses naming this one describe it from its prompt. */
  watch (watcher: () => void): void {
    this.#watchers.push(watcher)
  }

  /** The current edition with its arrival built again, when what it says of the addresses it names changed. */
  rearrive (): void {
    const current = this.current
    this.current = Object.freeze({ ...current, arrival: buildArrival(current.content, this.#settings, current.runtimes, this.#catalog) })
    publishEdition(this.path, 'built', current.version, this.current.arrival.json.etag)
  }

  /** Names the host's API catalog (RFC 9727 §3) in this arrival and every later one: `link` is the Link field value naming it. */
  catalogued (link: string): void {
    this.#catalog = link
    this.rearrive()
  }
}

function checkChange (change: unknown, path: string): asserts change is Record<string, unknown> {
  // From JavaScript anything may come: a number would pass as a change of nothing, a string of
  // members "0", "1"..., a promise (from an async function) as a change of nothing.
  if (change === null || typeof change !== 'object' || Array.isArray(change) || isThenable(change)) {
    throw new GPT_ERR_OPTION_INVALID(path, 'update() takes an object with form, prompt and/or messages (or a function returning one)')
  }
  for (const name of Object.keys(change)) {
    if (name !== 'form' && name !== 'prompt' && name !== 'messages') throw new GPT_ERR_OPTION_UNKNOWN(path, `"${name}" in update()`)
  }
}
