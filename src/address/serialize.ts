// A result form's compiled serializer (fast-json-stringify), where what it writes is the value
// judged. fast-json-stringify writes what its schema names: it leaves out members the schema does
// not list, reads a member the value lacks from its prototype, coerces a value to the type it
// expects, writes a `default` for a missing member, reads
// `format: "unsafe"` as "do not escape", and reads applicators ($ref, anyOf, if) its own way. A
// result form made only of the shapes below has none of that: a value it admits, read as data
// (`isData`), is written with exactly its members and values, the meaning JSON.stringify gives it.
// Any other form, or a result that is not such data, is written by JSON.stringify.
import build from 'fast-json-stringify'
import { types } from 'node:util'
import type { Json, JsonObject } from '../form/compile.ts'

/** What a node of such a form lets through: one JSON type, and for arrays and objects the shape of their parts. */
type Shape =
  | { readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'null' }
  | { readonly type: 'array', readonly items: Shape }
  | { readonly type: 'object', readonly properties: Readonly<Record<string, Shape>> }

/** The keywords a node may have besides its type and parts: they judge or annotate, and fast-json-stringify writes alike whatever they say. */
const BESIDE = new Set([
  'type', '$schema', 'title', 'description', '$comment', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'enum', 'const', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'required'
])
const LEAVES = new Set(['string', 'number', 'integer', 'boolean', 'null'])

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The shape of `schema`, or undefined where fast-json-stringify could write a value it admits otherwise than JSON.stringify. */
function shapeOf (schema: Json | undefined): Shape | undefined {
  if (!isObject(schema)) return undefined
  const { type, format, items, properties, additionalProperties } = schema
  if (typeof type !== 'string' || format === 'unsafe') return undefined
  for (const key of Object.keys(schema)) {
    if (!BESIDE.has(key) && !(type === 'array' && key === 'items') && !(type === 'object' && (key === 'properties' || key === 'additionalProperties'))) return undefined
  }
  if (LEAVES.has(type)) return { type: type as 'string' }
  if (type === 'array') {
    const shape = shapeOf(items)
    return shape === undefined ? undefined : { type, items: shape }
  }
  // Members it does not list would be left out: none may be there.
  if (type !== 'object' || additionalProperties !== false) return undefined
  // No prototype: a member's name finds its shape or nothing.
  const shapes = Object.create(null) as Record<string, Shape>
  for (const [name, member] of Object.entries(isObject(properties) ? properties : {})) {
    // It reads a member the value lacks from its prototype: Object.prototype's `constructor` would be written.
    if (name in Object.prototype) return undefined
    const shape = shapeOf(member)
    if (shape === undefined) return undefined
    shapes[name] = shape
  }
  return { type, properties: shapes }
}

/**
 * Whether `value` is data `shape` reads as JSON.stringify does: strings, finite numbers, booleans
 * and null where the shape has them, arrays of Array.prototype with every item, and objects of
 * Object.prototype (or none) whose own data members the shape lists; no toJSON, no proxy, no
 * getter (read again by the validator and the writer, it could give each another value). A Date,
 * an undefined member or a class instance is not data: JSON.stringify's text of it is judged.
 * (An array's items are read as they are: a getter on an index is not looked for.)
 */
function isData (value: unknown, shape: Shape): boolean {
  switch (shape.type) {
    case 'string': return typeof value === 'string'
    case 'number':
    case 'integer': return typeof value === 'number' && Number.isFinite(value)
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': {
      if (!Array.isArray(value) || types.isProxy(value) || Object.getPrototypeOf(value) !== Array.prototype || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      for (let i = 0; i < value.length; i++) if (!isData(value[i], shape.items)) return false
      return true
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || types.isProxy(value)) return false
      const prototype = Object.getPrototypeOf(value) as unknown
      if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      for (const name in value) {
        const member = shape.properties[name]
        if (member === undefined) return false
        const own = Object.getOwnPropertyDescriptor(value, name)
        if (own === undefined || !('value' in own) || !isData(own.value, member)) return false
      }
      return true
    }
  }
}

/** A result form's compiled writer: for a value that is data (`takes`), its JSON text. */
export interface Serializer {
  takes (value: unknown): boolean
  write (value: unknown): string
}

/** The compiled serializer of `schema`, at registration; undefined where it does not apply. */
export function compileSerializer (schema: JsonObject): Serializer | undefined {
  const shape = shapeOf(schema)
  if (shape === undefined) return undefined
  const write = build(schema as unknown as Parameters<typeof build>[0]) as (value: unknown) => string
  return Object.freeze({ takes: (value: unknown) => isData(value, shape), write })
}
