// llguidance: parser/src/json/schema.rs refuses every known keyword outside IMPLEMENTED (unless
// lenient, which its callers do not set by default); compiler.rs builds the grammar.
import { isObject, listOf, ownTypes, type Json, type JsonObject, type Place } from '../schema.ts'
import type { Judgement } from './profile.ts'
import { each, num, present, tabled } from './common.ts'
import { DOT, hasDot, LONE_SURROGATES, REPEATED_NAMES } from '../wire.ts'

/** Why compiler.rs finds a schema unsatisfiable in itself ("Unsatisfiable schema: ..."), if it does. */
function unsatisfiable (schema: Json): string | undefined {
  if (schema === false) return 'false'
  if (!isObject(schema)) return undefined
  const pair = (low: string, high: string): string | undefined => (num(schema, low) ?? -Infinity) > (num(schema, high) ?? Infinity) ? `${low} (${num(schema, low)}) is greater than ${high} (${num(schema, high)})` : undefined
  const found = pair('minLength', 'maxLength') ?? pair('minItems', 'maxItems') ?? pair('minimum', 'maximum') ?? pair('minProperties', 'maxProperties')
  if (found !== undefined) return found
  if (Array.isArray(schema['enum']) && schema['enum'].length === 0) return 'enum is empty'
  const required = listOf(schema['required']).length
  if (required > (num(schema, 'maxProperties') ?? Infinity)) return `${required} required properties, maxProperties ${num(schema, 'maxProperties')}`
  const options = listOf(schema['anyOf'])
  if (options.length > 0 && options.every((option) => unsatisfiable(option) !== undefined)) return 'All options in anyOf are unsatisfiable'
  for (const option of listOf(schema['allOf'])) if (unsatisfiable(option) !== undefined) return unsatisfiable(option)
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  for (const name of listOf(schema['required'])) {
    if (typeof name === 'string' && Object.hasOwn(properties, name) && unsatisfiable(properties[name] as Json) !== undefined) return `required property '${name}' is unsatisfiable`
  }
  if ((num(schema, 'minItems') ?? 0) > listOf(schema['prefixItems']).length && unsatisfiable(schema['items'] ?? true) !== undefined) return 'required item is unsatisfiable'
  return undefined
}

/** Whether compiler.rs must produce the schema in this place, so that its being unsatisfiable is an error. */
const produced = (place: Place): boolean => place.role === 'root' ||
  (place.role === 'value' && place.pointer.split('/').at(-2) === 'properties' && !place.optional)

/** numeric.rs Decimal::try_from: the digits of multipleOf must fit 32 bits. */
function multipleDigits (value: number): number | undefined {
  let v = value
  while (v % 1 !== 0) v *= 10
  return v > 4294967295 ? v : undefined
}

function guidanceWire (schema: JsonObject): Judgement[] {
  const out: Judgement[] = []
  if (typeof schema['pattern'] === 'string' && hasDot(schema['pattern'])) out.push({ keyword: 'pattern', verdict: 'loosened', why: DOT })
  const multiple = num(schema, 'multipleOf')
  const digits = multiple === undefined ? undefined : multipleDigits(multiple)
  if (digits !== undefined) out.push({ keyword: 'multipleOf', verdict: 'refused', why: `the converter fails: "Value for 'multipleOf' has too many digits: ${digits}"` })
  const patterns = Object.keys(isObject(schema['patternProperties']) ? schema['patternProperties'] : {})
  if (patterns.length > 1 && !patterns.every((p, i) => patterns.slice(i + 1).every((q) => disjointPrefixes(p, q)))) {
    out.push({ keyword: 'patternProperties', verdict: 'refused', why: 'patternProperties whose patterns may match one name are not supported' })
  }
  const object = ownTypes(schema)?.has('object') ?? ('properties' in schema || 'patternProperties' in schema || 'additionalProperties' in schema)
  if (object && schema['additionalProperties'] !== false && (num(schema, 'maxProperties') ?? 2) >= 2) {
    // gen_json_object: ( name ":" value "," )* name ":" value, the names held only apart from the listed ones
    const listed = 'properties' in schema || patterns.length > 0
    out.push({ keyword: 'additionalProperties' in schema ? 'additionalProperties' : '', verdict: 'loosened', why: listed ? `${REPEATED_NAMES}; and ${LONE_SURROGATES.replace('a string', 'a name')}` : REPEATED_NAMES })
  }
  return out
}

/** Two patterns anchored at the start with different literal first characters admit no name in common. */
function disjointPrefixes (a: string, b: string): boolean {
  const first = (p: string): string | undefined => /^\^([A-Za-z0-9_-])/.exec(p)?.[1]
  return first(a) !== undefined && first(b) !== undefined && first(a) !== first(b)
}

export const llguidance = tabled('llguidance', 'llguidance (vLLM guidance backend, llama.cpp with LLGuidance, Azure)', 'llguidance v1.8.0 (c75b0d90); parser/src/json/compiler.rs at 070ad1f8 and numeric.rs at ab38d8c5 (source read 2026-12-01)', {
  loosened: [],
  refused: ['not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'uniqueItems', 'contains', 'minContains',
    'maxContains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'],
  formats: new Set(['duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'uri']),
  approximate: { date: 'February has 29 days every year: 2021-02-29 passes', 'date-time': '2021-02-29 passes, and a leap second at any minute', time: 'a leap second at any minute: 12:00:60Z passes' },
  refusesFormats: true,
  oneOf: 'refused',
  extra (schema, place) {
    const unsat = produced(place) ? unsatisfiable(schema) : undefined
    if (unsat !== undefined) return [{ keyword: '', verdict: 'refused', why: `the converter fails: "Unsatisfiable schema: ${unsat}"` }]
    if (typeof schema['pattern'] === 'string' && /\(\?<?[=!]/.test(schema['pattern'])) return [{ keyword: 'pattern', verdict: 'refused', why: 'lookaround is not supported' }]
    const wire = guidanceWire(schema)
    // compiler.rs: min/maxProperties only count members beyond the required ones, or say "at
    // least / at most one" of a closed object's optional members.
    const named = Object.keys(isObject(schema['properties']) ? schema['properties'] : {})
    const required = named.filter((name) => listOf(schema['required']).includes(name)).length
    const min = Math.max((num(schema, 'minProperties') ?? 0) - required, 0)
    const max = num(schema, 'maxProperties')
    const rest = max === undefined ? undefined : Math.max(max - required, 0)
    if (named.length === required || (min === 0 && rest === undefined)) return wire
    const oneAtMost = min <= 1 && (rest ?? 1) === 1 && !('patternProperties' in schema) && schema['additionalProperties'] === false
    return oneAtMost ? wire : [...wire, ...each(present(schema, ['minProperties', 'maxProperties']), 'refused', 'supported only when every named property is required')]
  }
})
