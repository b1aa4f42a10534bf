// draft §7.2: everything an actor can cause is the set of values the form admits, so that set
// should be small: bounded strings and arrays, closed enumerations, closed objects.
import { isObject, listOf, ownTypes, refTarget, resolve, type Json, type JsonObject, type Place, type TypeName } from './schema.ts'
import type { Finding } from './types.ts'

/** A keyword on the schema itself, on one of its allOf alternatives, or where its $ref leads. */
export function bound (form: Json, schema: JsonObject, key: string, seen = new Set<object>()): Json | undefined {
  if (key in schema) return schema[key]
  if (seen.has(schema)) return undefined
  seen.add(schema)
  const target = refTarget(schema['$ref'])
  const to = target === undefined ? undefined : resolve(form, target)
  for (const next of [...listOf(schema['allOf']), ...(to === undefined ? [] : [to])]) {
    const found = isObject(next) ? bound(form, next, key, seen) : undefined
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The types a schema constrains its value to, where the schema itself says what it admits: not
 * when it is only a $ref or a union, whose alternatives are looked at in their own place.
 */
export function surfaceTypes (schema: Json, place: Place): Set<TypeName> | undefined {
  if (!isObject(schema) || place.role === 'in-place') return undefined
  const own = ownTypes(schema)
  if (own !== undefined) return own
  if ('$ref' in schema || 'anyOf' in schema || 'oneOf' in schema || 'allOf' in schema || 'not' in schema || 'if' in schema) return undefined
  // An alternative without a type of its own inherits its parent's.
  const inherited = place.role === 'branch' && place.parent !== undefined ? ownTypes(place.parent) : undefined
  if (inherited !== undefined) return inherited
  if ('properties' in schema) return new Set(['object'])
  if ('items' in schema || 'prefixItems' in schema) return new Set(['array'])
  return undefined
}

export function surface (form: Json, schema: Json, place: Place): Finding[] {
  const out: Finding[] = []
  const at = place.pointer
  const finding = (rule: string, pointer: string, message: string): void => {
    out.push({ rule, severity: 'warning', pointer, message, section: '7.2', decoders: [] })
  }
  if (schema === true || (isObject(schema) && Object.keys(schema).every((key) => !ASSERTING(key)))) {
    if (place.role !== 'in-place' && place.role !== 'definition') finding('value-unconstrained', at, 'This schema admits any JSON value: state its type and bounds.')
    return out
  }
  const types = surfaceTypes(schema, place)
  if (types === undefined || !isObject(schema)) return out
  const has = (key: string): boolean => bound(form, schema, key) !== undefined
  const literal = has('enum') || has('const')
  if (types.has('string') && !literal && !has('maxLength')) {
    finding('string-unbounded', at, 'Strings here have no maximum length: add maxLength (or enum, const).')
  }
  if (types.has('array') && !literal && !has('maxItems') && !(bound(form, schema, 'items') === false)) {
    finding('array-unbounded', at, 'Arrays here have no maximum size: add maxItems.')
  }
  if (types.has('object') && !literal) {
    const extra = bound(form, schema, 'additionalProperties')
    const closedLater = bound(form, schema, 'unevaluatedProperties') === false
    if (extra !== false && !closedLater) {
      finding('object-open', at, 'Objects here admit members the form does not name: add "additionalProperties": false.')
    } else if (has('patternProperties')) {
      finding('object-open', `${at}/patternProperties`, 'Objects here admit any member whose name matches a pattern: name each member in properties.')
    }
  }
  return out
}

// Keywords that say nothing about the value: a schema of only these admits anything.
const NEUTRAL = new Set(['$schema', '$id', '$comment', '$anchor', '$defs', 'definitions', 'title', 'description', 'default',
  'examples', 'deprecated', 'readOnly', 'writeOnly', 'format'])
const ASSERTING = (key: string): boolean => !NEUTRAL.has(key)
