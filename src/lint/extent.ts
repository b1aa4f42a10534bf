// How big and how deep the values a form admits can be: bounds computed from the form alone, to
// compare with the address's bodyLimit and maxDepth (draft §5.2 (1), §7.4).
import { isObject, listOf, literals, ownTypes, refTarget, resolve, TYPES, type Json, type JsonObject, type TypeName } from './schema.ts'

/**
 * Bounds over the values a schema admits, in bytes of their compact JSON encoding (no whitespace)
 * and in nesting of arrays and objects: `[[1]]` has depth 2. A schema that admits nothing has
 * `minBytes` Infinity. Lower bounds may be lower and upper bounds higher than the truth, never
 * the other way.
 */
export interface Extent {
  readonly minBytes: number
  readonly maxBytes: number
  readonly minDepth: number
  readonly maxDepth: number
}

const NOTHING: Extent = { minBytes: Infinity, maxBytes: 0, minDepth: Infinity, maxDepth: 0 }
const ANYTHING: Extent = { minBytes: 1, maxBytes: Infinity, minDepth: 0, maxDepth: Infinity }
// The longest compact encoding of a double: -1.7976931348623157e+308.
const NUMBER_BYTES = 24
// A code point's longest compact encoding: a control character written \u00XX.
const CHAR_BYTES = 6

const both = (a: Extent, b: Extent): Extent => a.minBytes === Infinity || b.minBytes === Infinity
  ? NOTHING
  : {
      minBytes: Math.max(a.minBytes, b.minBytes),
      maxBytes: Math.min(a.maxBytes, b.maxBytes),
      minDepth: Math.max(a.minDepth, b.minDepth),
      maxDepth: Math.min(a.maxDepth, b.maxDepth)
    }
const either = (a: Extent, b: Extent): Extent => ({
  minBytes: Math.min(a.minBytes, b.minBytes),
  maxBytes: Math.max(a.maxBytes, b.maxBytes),
  minDepth: Math.min(a.minDepth, b.minDepth),
  maxDepth: Math.max(a.maxDepth, b.maxDepth)
})

const bytes = (value: Json): number => Buffer.byteLength(JSON.stringify(value))
/** Nesting of arrays and objects in a value, iteratively: a `const` may be as deep as the form. */
function depth (value: Json): number {
  let deepest = 0
  const stack: Array<[Json, number]> = [[value, 0]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [here, level] = top
    if (here === null || typeof here !== 'object') continue
    deepest = Math.max(deepest, level + 1)
    for (const item of Array.isArray(here) ? here : Object.values(here)) stack.push([item as Json, level + 1])
  }
  return deepest
}

/** Whether the schema and its allOf alternatives name types no value has at once. */
function noCommonType (schema: JsonObject): boolean {
  let common = ownTypes(schema)
  for (const branch of listOf(schema['allOf'])) {
    const types = isObject(branch) ? ownTypes(branch) : undefined
    if (types === undefined) continue
    common = common === undefined ? types : new Set([...common].filter((t) => types.has(t)))
  }
  return common !== undefined && common.size === 0
}

/** The extent of a subschema, as one form's `extents` gives it. */
type Of = (schema: Json) => Extent

/** The extent of every subschema of one form, each computed once. */
export function extents (form: Json): (schema: Json) => Extent {
  const done = new Map<object, Extent>()
  const open = new Set<object>()
  let tainted = 0 // results that met a schema still being computed are not remembered

  const of = (schema: Json): Extent => {
    if (schema === true) return ANYTHING
    if (!isObject(schema)) return NOTHING
    const known = done.get(schema)
    if (known !== undefined) return known
    // A path that comes back to a schema: the smallest value never needs to (its inner part would
    // do in place of the outer), and the largest is unbounded.
    if (open.has(schema)) {
      tainted++
      return { minBytes: Infinity, maxBytes: Infinity, minDepth: Infinity, maxDepth: Infinity }
    }
    open.add(schema)
    const before = tainted
    const result = compute(form, schema, of)
    open.delete(schema)
    if (tainted === before) done.set(schema, result)
    return result
  }
  return of
}

/** A schema's own extent, narrowed by where its `$ref` leads, its allOf and its unions. */
function compute (form: Json, schema: JsonObject, of: Of): Extent {
  const never = schema['not']
  if (never === true || (isObject(never) && Object.keys(never).length === 0)) return NOTHING
  if (noCommonType(schema)) return NOTHING
  let extent = own(schema, of)
  const target = refTarget(schema['$ref'])
  if (target !== undefined) {
    const to = resolve(form, target)
    if (to !== undefined) extent = both(extent, of(to))
  }
  for (const branch of listOf(schema['allOf'])) extent = both(extent, of(branch))
  for (const key of ['anyOf', 'oneOf']) {
    const branches = listOf(schema[key])
    if (branches.length > 0) extent = both(extent, branches.map(of).reduce(either, NOTHING))
  }
  return extent
}

/** The extent of the values a schema's own keywords admit: its literals, or each type it allows. */
function own (schema: JsonObject, of: Of): Extent {
  const values = literals(schema)
  if (values !== undefined) {
    return values.reduce<Extent>((sum, value) => either(sum, { minBytes: bytes(value), maxBytes: bytes(value), minDepth: depth(value), maxDepth: depth(value) }), NOTHING)
  }
  const types = ownTypes(schema) ?? new Set<TypeName>(TYPES)
  let extent = NOTHING
  for (const type of types) extent = either(extent, ofType(schema, type, of))
  return extent
}

function ofType (schema: JsonObject, type: TypeName, of: Of): Extent {
  const number = (key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
  switch (type) {
    case 'null': return { minBytes: 4, maxBytes: 4, minDepth: 0, maxDepth: 0 }
    case 'boolean': return { minBytes: 4, maxBytes: 5, minDepth: 0, maxDepth: 0 }
    case 'number': case 'integer': {
      const low = number('minimum') ?? number('exclusiveMinimum')
      const high = number('maximum') ?? number('exclusiveMaximum')
      if (low !== undefined && high !== undefined && (low > high || (low === high && ('exclusiveMinimum' in schema || 'exclusiveMaximum' in schema)))) return NOTHING
      const least = low !== undefined && low > 0 ? String(Math.ceil(low)).length : high !== undefined && high < 0 ? String(Math.floor(high)).length : 1
      const most = type === 'integer' && low !== undefined && high !== undefined
        ? Math.max(String(Math.ceil(low)).length, String(Math.floor(high)).length)
        : NUMBER_BYTES
      return { minBytes: least, maxBytes: Math.max(least, most), minDepth: 0, maxDepth: 0 }
    }
    case 'string': {
      const max = number('maxLength')
      if ((number('minLength') ?? 0) > (max ?? Infinity)) return NOTHING
      return { minBytes: 2 + (number('minLength') ?? 0), maxBytes: max === undefined ? Infinity : 2 + CHAR_BYTES * max, minDepth: 0, maxDepth: 0 }
    }
    case 'array': return (number('minItems') ?? 0) > (number('maxItems') ?? Infinity) ? NOTHING : array(schema, number('minItems') ?? 0, number('maxItems'), of)
    case 'object': return object(schema, of)
  }
}

function array (schema: JsonObject, minItems: number, maxItems: number | undefined, of: Of): Extent {
  const prefix = listOf(schema['prefixItems'])
  const rest = schema['items'] ?? true
  const item = (i: number): Json => (i < prefix.length ? prefix[i] as Json : rest)
  let minBytes = 2 + Math.max(0, minItems - 1)
  let minDepth = 1
  // The prefix one by one, then every further item at once: the same schema, so the same
  // extent, however many items minItems asks for (the work is the form's size, not its numbers).
  for (let i = 0; i < Math.min(minItems, prefix.length) && minBytes < Infinity; i++) {
    const e = of(item(i))
    minBytes += e.minBytes
    minDepth = Math.max(minDepth, 1 + e.minDepth)
  }
  if (minItems > prefix.length && minBytes < Infinity) {
    const e = of(rest)
    minBytes += (minItems - prefix.length) * e.minBytes
    minDepth = Math.max(minDepth, 1 + e.minDepth)
  }
  const count = rest === false ? Math.min(prefix.length, maxItems ?? Infinity) : maxItems ?? Infinity
  let maxBytes = 2 + Math.max(0, count - 1)
  let maxDepth = 1
  for (let i = 0; i < Math.min(count, prefix.length + 1); i++) {
    const e = of(item(i))
    if (e.minBytes === Infinity) continue
    maxBytes += (i < prefix.length ? 1 : count - prefix.length) * e.maxBytes
    maxDepth = Math.max(maxDepth, 1 + e.maxDepth)
  }
  if (count === Infinity) maxBytes = Infinity
  return minBytes === Infinity ? NOTHING : { minBytes, maxBytes, minDepth, maxDepth }
}

function object (schema: JsonObject, of: Of): Extent {
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  const required = listOf(schema['required']).filter((name): name is string => typeof name === 'string')
  const extra = schema['additionalProperties'] ?? true
  const member = (name: string): Json => (Object.hasOwn(properties, name) ? properties[name] as Json : extra)
  let minBytes = 2 + Math.max(0, required.length - 1)
  let minDepth = 1
  for (const name of new Set(required)) {
    const e = of(member(name))
    minBytes += bytes(name) + 1 + e.minBytes
    minDepth = Math.max(minDepth, 1 + e.minDepth)
  }
  const open = extra !== false || schema['patternProperties'] !== undefined
  let maxBytes = 2 + Math.max(0, Object.keys(properties).length - 1)
  let maxDepth = 1
  for (const name of Object.keys(properties)) {
    const e = of(properties[name] as Json)
    if (e.minBytes === Infinity) continue
    maxBytes += bytes(name) + 1 + e.maxBytes
    maxDepth = Math.max(maxDepth, 1 + e.maxDepth)
  }
  if (open) {
    maxBytes = Infinity
    maxDepth = Math.max(maxDepth, 1 + of(extra).maxDepth)
    for (const item of Object.values(isObject(schema['patternProperties']) ? schema['patternProperties'] : {})) {
      maxDepth = Math.max(maxDepth, 1 + of(item).maxDepth)
    }
  }
  return minBytes === Infinity ? NOTHING : { minBytes, maxBytes, minDepth, maxDepth }
}
