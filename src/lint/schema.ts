// Reading a form as a tree of schemas: where each subschema is, what it applies to, and where a
// local `$ref` leads. Only what the lint needs, cheaply: one walk per form.
import { applicators } from '../json/applicators.ts'
import { escape, refPointer, valueAt } from '../json/pointer.ts'
import { isObject, type Json, type JsonObject } from '../json/value.ts'

export { escape, isObject, type Json, type JsonObject }

/** What a subschema is to its parent. */
export type Role =
  | 'root' // the form itself
  | 'value' // applies to a member or item of the parent's value (properties, items...)
  | 'branch' // an alternative of anyOf or oneOf
  | 'in-place' // applies to the same value alongside its parent (allOf, not, if, then, else...)
  | 'definition' // in $defs: applies where a $ref leads

export interface Place {
  readonly pointer: string
  readonly role: Role
  /** A property schema whose name is not in the parent's `required`. */
  readonly optional: boolean
  /** The parent's schema, for keywords read beside it. */
  readonly parent: JsonObject | undefined
}

const VALUE = applicators('one', 'part')
const VALUE_LISTS = applicators('list', 'part')
const VALUE_MAPS = applicators('map', 'part')
const IN_PLACE = applicators('one', 'in-place')
const IN_PLACE_MAPS = applicators('map', 'in-place')

/** Every subschema of the form, parents first, each once (the form is a tree: see freezeJson). */
export function walk (form: Json, visit: (schema: Json, place: Place) => void): void {
  const go = (schema: Json, place: Place): void => {
    visit(schema, place)
    if (!isObject(schema)) return
    const child = (value: Json | undefined, pointer: string, role: Role, optional = false): void => {
      if (value !== undefined) go(value, { pointer, role, optional, parent: schema })
    }
    const at = place.pointer
    const required = Array.isArray(schema['required']) ? schema['required'] : []
    for (const key of VALUE) child(schema[key], `${at}/${key}`, 'value')
    for (const key of IN_PLACE) child(schema[key], `${at}/${key}`, 'in-place')
    for (const key of VALUE_LISTS) listOf(schema[key]).forEach((item, i) => child(item, `${at}/${key}/${i}`, 'value'))
    listOf(schema['allOf']).forEach((item, i) => child(item, `${at}/allOf/${i}`, 'in-place'))
    for (const key of ['anyOf', 'oneOf']) listOf(schema[key]).forEach((item, i) => child(item, `${at}/${key}/${i}`, 'branch'))
    for (const key of VALUE_MAPS) {
      for (const [name, item] of entries(schema[key])) {
        child(item, `${at}/${key}/${escape(name)}`, 'value', key === 'properties' && !required.includes(name))
      }
    }
    for (const key of IN_PLACE_MAPS) for (const [name, item] of entries(schema[key])) child(item, `${at}/${key}/${escape(name)}`, 'in-place')
    for (const key of applicators('map', 'definition')) for (const [name, item] of entries(schema[key])) child(item, `${at}/${key}/${escape(name)}`, 'definition')
  }
  go(form, { pointer: '', role: 'root', optional: false, parent: undefined })
}

export const listOf = (value: Json | undefined): readonly Json[] => (Array.isArray(value) ? value : [])
export const entries = (value: Json | undefined): Array<[string, Json]> => (isObject(value) ? Object.entries(value) : [])

/**
 * The pointer a local `$ref` names (`#`, `#/$defs/a`), or undefined for one the lint does not
 * follow (an `$anchor`, another document): such a ref is left to the validator, which refuses
 * what does not resolve.
 */
export const refTarget = (ref: Json | undefined): string | undefined =>
  typeof ref === 'string' ? refPointer(ref) : undefined

/** The value at a JSON Pointer of the form, or undefined. */
export const resolve = valueAt

export const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const
export type TypeName = typeof TYPES[number]

/** The JSON type of a value, as `type` names it (an integral number is an 'integer'). */
export function typeOf (value: Json): TypeName {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value as 'boolean' | 'string' | 'object'
}

/**
 * The types a schema's own `type`, `const` and `enum` let through, or undefined when they leave
 * every type open. 'number' includes integers.
 */
export function ownTypes (schema: JsonObject): Set<TypeName> | undefined {
  let types: Set<TypeName> | undefined
  const type = schema['type']
  if (typeof type === 'string') types = new Set([type as TypeName])
  else if (Array.isArray(type)) types = new Set(type as TypeName[])
  if (types?.has('number')) types.add('integer')
  const literals = 'const' in schema ? [schema['const'] as Json] : Array.isArray(schema['enum']) ? schema['enum'] : undefined
  if (literals !== undefined) {
    const of = new Set(literals.map(typeOf))
    if (of.has('integer')) of.add('number')
    types = types === undefined ? of : new Set([...types].filter((t) => of.has(t)))
  }
  return types
}

/** The literal values a schema is limited to by its own `const` or `enum`, if any. */
export function literals (schema: JsonObject): readonly Json[] | undefined {
  if ('const' in schema) return [schema['const'] as Json]
  return Array.isArray(schema['enum']) ? schema['enum'] : undefined
}

/** JSON equality (member order does not matter; 1 and 1.0 are one number). */
export function equal (a: Json, b: Json): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i] as Json))
  if (!isObject(a) || !isObject(b)) return false
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key] as Json, b[key] as Json))
}
