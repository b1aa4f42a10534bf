// What a decoder profile is: how it judges each schema of a form in its context. Every profile of
// this folder implements it; ../decoders.ts lists them.
import type { Json, Place } from '../schema.ts'
import type { DecoderName } from '../types.ts'

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
