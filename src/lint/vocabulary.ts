// draft §4.1: keep to keywords that constrain shape, avoid those a decoder may drop, and prefer
// anyOf to oneOf.
import { disjointOneOf } from './unions.ts'
import { isObject, type Json, type Place } from './schema.ts'
import type { Finding } from './types.ts'

/** The keywords the draft's reference implementation uses (draft §4.1). */
export const VOCABULARY = new Set(['type', 'properties', 'required', 'additionalProperties', 'const', 'enum', 'minLength',
  'maxLength', 'minItems', 'maxItems', 'items', 'description', '$defs', '$ref', 'anyOf'])

// Keywords that constrain nothing, so that no decoder can widen anything by dropping them.
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', '$anchor', 'definitions', 'title', 'default', 'examples',
  'deprecated', 'readOnly', 'writeOnly', 'oneOf'])

export function vocabulary (form: Json, schema: Json, place: Place): Finding[] {
  if (!isObject(schema)) return []
  const out: Finding[] = []
  for (const key of Object.keys(schema)) {
    if (VOCABULARY.has(key) || ANNOTATIONS.has(key)) continue
    out.push({
      rule: 'outside-vocabulary',
      severity: 'info',
      pointer: `${place.pointer}/${key}`,
      message: `"${key}" is outside the draft's vocabulary: a decoder that drops it widens what actors produce, and bodies it then admits are refused.`,
      section: '4.1',
      decoders: []
    })
  }
  if ('oneOf' in schema) {
    const disjoint = disjointOneOf(form, schema)
    out.push({
      rule: 'one-of',
      severity: disjoint ? 'info' : 'warning',
      pointer: `${place.pointer}/oneOf`,
      message: disjoint
        ? 'The alternatives of this oneOf are disjoint: write anyOf, which admits the same values and more decoders take.'
        : 'The alternatives of this oneOf may overlap (no distinct types or tag to tell them apart): a value matching two is refused, and decoders that read oneOf as anyOf produce such values. Make them disjoint and write anyOf.',
      section: '4.1',
      decoders: []
    })
  }
  return out
}
