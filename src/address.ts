import type { ValidateFunction } from 'ajv/dist/2020.js'
import { buildArrival, type Arrival } from './arrival.ts'
import { GPT_ERR_OPTION_INVALID, GPT_ERR_OPTION_UNKNOWN } from './errors.ts'
import { compileForm } from './form.ts'
import { resolveContent, type Content, type ContentChange, type GptAddress, type Settings } from './options.ts'

/**
 * One version of an address: its content, the validator compiled from that very form and the
 * arrival serialized from it. Built whole before it is used, never changed after.
 */
export interface Edition {
  readonly content: Content
  readonly validate: ValidateFunction
  readonly arrival: Arrival
}

function buildEdition (content: Content, settings: Settings): Edition {
  return Object.freeze({
    content,
    validate: compileForm(content.form, settings.path, { allErrors: settings.explain }),
    arrival: buildArrival(content, settings)
  })
}

/**
 * The live address. Requests read `current` once and use that edition throughout; an update
 * replaces it with one assignment, so no request sees a mix of old and new.
 */
export class Address implements GptAddress {
  readonly path: string
  current: Edition
  readonly #settings: Settings

  constructor (settings: Settings) {
    this.path = settings.path
    this.#settings = settings
    this.current = buildEdition(settings.content, settings)
  }

  get form (): Content['form'] { return this.current.content.form }
  get prompt (): string { return this.current.content.prompt }
  get messages (): Content['messages'] { return this.current.content.messages }
  get etag (): string { return this.current.arrival.json.etag }

  update (change: ContentChange): void {
    // From JavaScript anything may come: a number would pass as a change of nothing, a string of members "0", "1"...
    if (change === null || typeof change !== 'object' || Array.isArray(change)) {
      throw new GPT_ERR_OPTION_INVALID(this.path, 'update() takes an object with form, prompt and/or messages')
    }
    for (const name of Object.keys(change)) {
      if (name !== 'form' && name !== 'prompt' && name !== 'messages') throw new GPT_ERR_OPTION_UNKNOWN(this.path, `"${name}" in update()`)
    }
    const content = resolveContent(change as Record<string, unknown>, this.current.content, this.path)
    this.current = buildEdition(content, this.#settings)
  }
}
