// outlines-core: src/json_schema/parsing.rs (Parser::to_regex) builds one regular expression; the
// first of OUTLINES_FIRST present decides it, then `type`; anything else is refused.
import { anchored } from '../xgrammar.ts'
import { isObject, listOf, ownTypes, resolve, type Json } from '../schema.ts'
import type { Judgement } from './profile.ts'
import { beside, each, isString, num, present, reading, tabled, typeBesideLiterals, undeclared } from './common.ts'
import { NUMBER_OVERFLOW, REPEATED_NAMES, TEXT_MATCHED, textLeaks } from '../wire.ts'
import { unescape } from '../../json/pointer.ts'

const OUTLINES_FIRST = ['properties', 'allOf', 'anyOf', 'oneOf', 'prefixItems', 'enum', 'const', '$ref']
const OUTLINES_LOOSENED = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'not', 'then', 'else',
  'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'patternProperties',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']

/** The verdict on a `$ref` closing a cycle: past three nested refs the property holding it is left out. */
function outlinesRecursion (form: Json, pointer: string): Judgement {
  const tokens = pointer.split('/')
  const at = tokens.lastIndexOf('properties', -2)
  const holder = at > 0 ? resolve(form, tokens.slice(0, at).join('/')) : undefined
  const token = tokens[at + 1]
  const name = token === undefined ? undefined : unescape(token)
  if (isObject(holder) && name !== undefined && !listOf(holder['required']).includes(name)) {
    return { keyword: '$ref', verdict: 'tightened', why: 'recursion is cut after three levels' }
  }
  return { keyword: '$ref', verdict: 'loosened', why: 'recursion is cut after three levels by leaving out the member holding it, even a required one (refused when none holds it)' }
}

// Bounds whose automaton was reported to take over 10 s to build (at 2,000): past the compile
// timeouts of the runtimes that use it.
const COSTLY = 2000
// Characters a JSON string must escape: parse_properties writes member names between quotes as they are.
const unescaped = (name: string): boolean => [...name].some((c) => c === '"' || c === '\\' || c.charCodeAt(0) < 0x20)

export const outlines = tabled('outlines', 'Outlines (outlines-core), vLLM and others with the outlines backend', 'outlines-core src/json_schema at a5e00103, 2026-04-21 (source read 2026-12-01)', {
  loosened: OUTLINES_LOOSENED,
  refused: [],
  formats: new Set(['uuid']),
  approximate: {
    email: 'its email pattern admits a raw quote, which ends the JSON string early: not JSON',
    uri: 'its uri pattern admits a raw quote, which ends the JSON string early: not JSON',
    date: '2021-02-30 passes',
    'date-time': 'no offset needed, 2021-02-30T00:00:00 passes',
    time: 'no offset needed: 12:00:00 passes'
  },
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
    for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems']) {
      if ((num(schema, key) ?? 0) >= COSTLY) out.push({ keyword: key, verdict: 'refused', why: `its automaton for a bound of ${COSTLY} or more takes over 10 s to build` })
    }
    const ref = schema['$ref']
    if (winner === '$ref' && isString(ref) && ref !== '#' && !ref.startsWith('#/')) return [{ keyword: '$ref', verdict: 'refused', why: 'the converter resolves only "#" and "#/..." references, no anchors or relative ones' }]
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
        if (Object.keys(isObject(schema['properties']) ? schema['properties'] : {}).some(unescaped)) {
          out.push({ keyword: 'properties', verdict: 'loosened', why: 'member names are written between quotes unescaped: a name with a quote, a backslash or a control character comes out as text that is not JSON' })
        }
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
      if (textLeaks(pattern)) out.push({ keyword: 'pattern', verdict: 'loosened', why: TEXT_MATCHED })
      if (!anchored(pattern)) out.push({ keyword: 'pattern', verdict: 'tightened', why: 'matched as if anchored at both ends' })
      out.push(...each(present(schema, ['format']), 'loosened', 'not read beside pattern'))
    }
    const types = ownTypes(schema)
    if (types?.has('object') === true) {
      out.push(...each(present(schema, ['required']), 'loosened', 'not read without properties'))
      // parse_object_type: ( name : value )( , name : value )* with any string as the name
      if (schema['additionalProperties'] !== false) out.push({ keyword: 'additionalProperties' in schema ? 'additionalProperties' : '', verdict: 'loosened', why: REPEATED_NAMES })
    }
    if (types?.has('number') === true) out.push({ keyword: '', verdict: 'loosened', why: NUMBER_OVERFLOW })
    if (types?.has('integer') === true) out.push({ keyword: '', verdict: 'loosened', why: 'its integer rule takes any number of digits: past 2^53 the parser refuses the body' })
    return out
  }
})
