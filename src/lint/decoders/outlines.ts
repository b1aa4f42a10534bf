// outlines-core: src/json_schema/parsing.rs (Parser::to_regex) builds one regular expression; the
// first of OUTLINES_FIRST present decides it, then `type`; anything else is refused.
import { anchored } from '../xgrammar.ts'
import { isObject, listOf, ownTypes, resolve, type Json } from '../schema.ts'
import type { Judgement } from '../decoders.ts'
import { beside, each, isString, num, present, reading, tabled, typeBesideLiterals, undeclared } from './common.ts'

const OUTLINES_FIRST = ['properties', 'allOf', 'anyOf', 'oneOf', 'prefixItems', 'enum', 'const', '$ref']
const OUTLINES_LOOSENED = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'not', 'then', 'else',
  'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'patternProperties',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']

/** The verdict on a `$ref` closing a cycle: past three nested refs the property holding it is left out. */
function outlinesRecursion (form: Json, pointer: string): Judgement {
  const tokens = pointer.split('/')
  const at = tokens.lastIndexOf('properties', -2)
  const holder = at > 0 ? resolve(form, tokens.slice(0, at).join('/')) : undefined
  const name = tokens[at + 1]?.replaceAll('~1', '/').replaceAll('~0', '~')
  if (isObject(holder) && name !== undefined && !listOf(holder['required']).includes(name)) {
    return { keyword: '$ref', verdict: 'tightened', why: 'recursion is cut after three levels' }
  }
  return { keyword: '$ref', verdict: 'loosened', why: 'recursion is cut after three levels by leaving out the member holding it, even a required one (refused when none holds it)' }
}

export const outlines = tabled('outlines', 'Outlines (outlines-core), vLLM and others with the outlines backend', {
  loosened: OUTLINES_LOOSENED,
  refused: [],
  formats: new Set(['uuid', 'email', 'uri']),
  approximate: { date: '2021-02-30 passes', 'date-time': 'no offset needed, 2021-02-30T00:00:00 passes', time: 'no offset needed: 12:00:00 passes' },
  refusesFormats: true,
  oneOf: 'loosened',
  // additionalProperties is read only on an object without properties.
  booleans: () => true,
  reads: reading(OUTLINES_FIRST, ['items', 'additionalProperties']),
  extra (schema, place, context) {
    const winner = OUTLINES_FIRST.find((key) => key in schema)
    if (winner === undefined && !('type' in schema)) {
      return Object.keys(schema).length === 0 ? [] : [{ keyword: '', verdict: 'refused', why: `the converter needs type or one of ${OUTLINES_FIRST.join(', ')}` }]
    }
    const out: Judgement[] = []
    if (winner !== undefined) {
      out.push(...beside(schema, winner, ['type', 'additionalProperties', ...(winner === 'properties' ? ['required'] : [])], OUTLINES_LOOSENED))
      const types = ownTypes(schema)
      const produced = winner === 'properties' ? 'object' : winner === 'prefixItems' ? 'array' : undefined
      if ('type' in schema && (['allOf', 'anyOf', 'oneOf', '$ref'].includes(winner) || (produced !== undefined && types?.has(produced) === false) || typeBesideLiterals(schema))) {
        out.push({ keyword: 'type', verdict: 'loosened', why: `not read beside ${winner}` })
      }
      if ('additionalProperties' in schema && winner !== 'properties') out.push({ keyword: 'additionalProperties', verdict: 'loosened', why: `not read beside ${winner}` })
      if (winner === 'properties') {
        out.push(...undeclared(schema))
        if (schema['additionalProperties'] !== false) out.push({ keyword: '', verdict: 'tightened', why: 'members the form does not name are never produced' })
      }
      if (winner === 'allOf' && listOf(schema['allOf']).length > 1) out.push({ keyword: 'allOf', verdict: 'loosened', why: 'its alternatives are concatenated, which is not one JSON value' })
      if (winner === '$ref' && context.cyclic.has(`${place.pointer}/$ref`)) out.push(outlinesRecursion(context.form, place.pointer))
      return out
    }
    if ((num(schema, 'minLength') ?? 0) > (num(schema, 'maxLength') ?? Infinity)) out.push({ keyword: 'minLength', verdict: 'refused', why: 'the converter refuses minLength above maxLength' })
    if ('minLength' in schema || 'maxLength' in schema) return [...out, ...each(present(schema, ['pattern', 'format']), 'loosened', 'not read beside minLength or maxLength')]
    const pattern = schema['pattern']
    if (isString(pattern)) {
      if (/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern)) return [{ keyword: 'pattern', verdict: 'refused', why: 'its regex engine has no lookaround or backreferences' }]
      if (/\\[dw]/.test(pattern)) out.push({ keyword: 'pattern', verdict: 'loosened', why: '\\d and \\w match Unicode digits and letters' })
      if (!anchored(pattern)) out.push({ keyword: 'pattern', verdict: 'tightened', why: 'matched as if anchored at both ends' })
      out.push(...each(present(schema, ['format']), 'loosened', 'not read beside pattern'))
    }
    if (ownTypes(schema)?.has('object') === true) {
      out.push(...each(present(schema, ['required']), 'loosened', 'not read without properties'))
    }
    return out
  }
})
