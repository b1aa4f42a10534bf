// What each constrained decoder does with each keyword of a form, in its context: one profile a
// file under decoders/. Sources, versions, dates and what was checked against the real
// converters: docs/forms.md.
import type { Json, Place } from './schema.ts'
import type { DecoderName } from './types.ts'
import { anthropic } from './decoders/anthropic.ts'
import { gemini } from './decoders/gemini.ts'
import { llamaCpp } from './decoders/llama-cpp.ts'
import { llguidance } from './decoders/llguidance.ts'
import { openai } from './decoders/openai.ts'
import { outlines } from './decoders/outlines.ts'
import { xgrammar } from './decoders/xgrammar.ts'

export { ARRAY, ASSERTIONS, NUMBER, OBJECT, STRING } from './decoders/common.ts'

/**
 * enforced: the actor never produces what this keyword forbids.
 * tightened: the actor produces only part of what the keyword admits; nothing it produces is rejected.
 * loosened: the decoder drops or weakens the keyword; the actor may produce what the address rejects.
 * refused: the runtime refuses the form; an actor using it cannot act.
 */
export type Verdict = 'enforced' | 'tightened' | 'loosened' | 'refused'

export interface Judgement {
  /** The keyword judged, or '' for the schema as a whole. */
  readonly keyword: string
  readonly verdict: Exclude<Verdict, 'enforced'>
  readonly why: string
}

/** What a profile may ask about the form around a schema. */
export interface Context {
  readonly form: Json
  /** Pointers of the `$ref`s that close or stand on a cycle (draft §4.2). */
  readonly cyclic: ReadonlySet<string>
}

export interface Profile {
  readonly name: DecoderName
  /** The runtimes that use it. */
  readonly runtimes: string
  /** The converter, and its version or commit, the profile describes. */
  readonly version: string
  readonly judge: (schema: Json, place: Place, context: Context) => Judgement[]
  /** Limits on the form as a whole. */
  readonly limits?: (form: Json) => Judgement[]
}

export const PROFILES: readonly Profile[] = [openai, anthropic, gemini, llamaCpp, xgrammar, outlines, llguidance]
