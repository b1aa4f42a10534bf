// Values the form admits but the address refuses anyway (its parser, its limits), and forms that
// admit nothing at all: an actor producing such a value gets a bare 204 (draft §5.3).
import { extents } from './extent.ts'
import { bound, surfaceTypes } from './surface.ts'
import { isObject, listOf, type Json, type JsonObject, type Place } from './schema.ts'
import type { Finding } from './types.ts'

const SAFE = Number.MAX_SAFE_INTEGER

/** Findings about one subschema. */
export function disagreements (form: Json, schema: Json, place: Place): Finding[] {
  if (!isObject(schema)) return []
  const out: Finding[] = []
  const finding = (rule: string, pointer: string, message: string): void => {
    out.push({ rule, severity: 'warning', pointer, message, section: '5.2', decoders: [] })
  }
  const types = surfaceTypes(schema, place)
  const value = (key: string): number | undefined => {
    const found = bound(form, schema, key)
    return typeof found === 'number' ? found : undefined
  }
  if (types !== undefined && (types.has('integer') || types.has('number')) && !('enum' in schema) && !('const' in schema)) {
    const low = value('minimum') ?? value('exclusiveMinimum')
    const high = value('maximum') ?? value('exclusiveMaximum')
    if (low === undefined || high === undefined || low < -SAFE || high > SAFE) {
      finding('integer-unsafe', place.pointer, 'Integers past 2^53-1 in magnitude are admitted here but refused by the address\'s parser: add minimum and maximum within ±9007199254740991.')
    }
  }
  const literal = [...listOf(schema['enum']), ...('const' in schema ? [schema['const'] as Json] : [])]
  if (literal.some((v) => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) > SAFE)) {
    finding('integer-unsafe', place.pointer, 'An integer literal here is past 2^53-1 in magnitude: the address\'s parser refuses any body that writes it.')
  }
  if (types?.has('object') === true && admitsProto(form, schema)) {
    finding('proto-member', place.pointer, 'A member named "__proto__" is admitted here but refused by the address\'s parser: close the object ("additionalProperties": false).')
  }
  out.push(...contradictions(schema, place))
  return out
}

function admitsProto (form: Json, schema: JsonObject): boolean {
  const names = bound(form, schema, 'propertyNames')
  if (isObject(names)) {
    const allowed = names['enum'] ?? ('const' in names ? [names['const'] as Json] : undefined)
    if (Array.isArray(allowed) && !allowed.includes('__proto__')) return false
    if (typeof names['maxLength'] === 'number' && names['maxLength'] < 9) return false
    if (typeof names['pattern'] === 'string' && !matches(names['pattern'])) return false
  }
  if (names === false) return false
  const patterns = bound(form, schema, 'patternProperties')
  if (isObject(patterns) && Object.keys(patterns).some(matches)) return true
  const extra = bound(form, schema, 'additionalProperties')
  return extra !== false && bound(form, schema, 'unevaluatedProperties') !== false
}

const matches = (pattern: string): boolean => {
  try {
    return new RegExp(pattern, 'u').test('__proto__')
  } catch {
    return true
  }
}

/** Keywords of one schema that no value can satisfy together. */
function contradictions (schema: JsonObject, place: Place): Finding[] {
  const out: Finding[] = []
  const nothing = (keyword: string, why: string): void => {
    out.push({ rule: 'admits-nothing', severity: 'warning', pointer: `${place.pointer}/${keyword}`, message: `No value satisfies this schema: ${why}.`, section: '4', decoders: [] })
  }
  const n = (key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
  if (Array.isArray(schema['enum']) && schema['enum'].length === 0) nothing('enum', 'enum lists no value')
  if (Array.isArray(schema['type']) && schema['type'].length === 0) nothing('type', 'type lists no type')
  const never = schema['not']
  if (never === true || (isObject(never) && Object.keys(never).length === 0)) nothing('not', 'not {} refuses every value')
  const pairs: Array<[string, string, boolean]> = [
    ['minLength', 'maxLength', false], ['minItems', 'maxItems', false], ['minProperties', 'maxProperties', false],
    ['minimum', 'maximum', false], ['exclusiveMinimum', 'maximum', true], ['minimum', 'exclusiveMaximum', true],
    ['exclusiveMinimum', 'exclusiveMaximum', true]
  ]
  for (const [low, high, strict] of pairs) {
    const a = n(low)
    const b = n(high)
    if (a !== undefined && b !== undefined && (a > b || (strict && a === b))) nothing(low, `${low} ${a} is above ${high} ${b}`)
  }
  const required = listOf(schema['required'])
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  for (const name of required) {
    if (typeof name === 'string' && properties[name] === false) nothing('required', `"${name}" is required and its schema is false`)
  }
  return out
}

/** Findings about the form as a whole against the address's limits. */
export function limits (form: Json, bodyLimit: number, maxDepth: number): Finding[] {
  const out: Finding[] = []
  const extent = extents(form)(form)
  const add = (rule: string, severity: Finding['severity'], message: string): void => {
    out.push({ rule, severity, pointer: '', message, section: '5.2', decoders: [] })
  }
  if (extent.minBytes === Infinity) {
    add('form-admits-nothing', 'error', 'The form admits no value at all: no actor can act.')
    return out
  }
  if (extent.minBytes > bodyLimit) {
    add('body-beyond-limit', 'error', `The smallest value the form admits takes ${extent.minBytes} bytes, more than bodyLimit (${bodyLimit}): no actor can act.`)
  } else if (extent.maxBytes > bodyLimit) {
    const size = extent.maxBytes === Infinity ? 'without bound' : `up to ${extent.maxBytes} bytes`
    add('body-beyond-limit', 'warning', `Values the form admits run ${size}, past bodyLimit (${bodyLimit}): the address refuses those. Bound strings and arrays, or raise bodyLimit.`)
  }
  if (extent.minDepth > maxDepth) {
    add('depth-beyond-limit', 'error', `Every value the form admits nests ${extent.minDepth} deep, past maxDepth (${maxDepth}): no actor can act.`)
  } else if (extent.maxDepth > maxDepth) {
    const depth = extent.maxDepth === Infinity ? 'without bound' : `${extent.maxDepth} deep`
    add('depth-beyond-limit', 'warning', `Values the form admits nest ${depth}, past maxDepth (${maxDepth}): the address refuses those. Bound the nesting (draft §4.2) or raise maxDepth.`)
  }
  return out
}
