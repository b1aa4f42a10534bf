// Values that a form admits, proposed from the form's own keywords; the judge (judge.ts) decides
// each one. A generator of our own rather than json-schema-faker: its proposals are small and
// near the form's bounds, and it records which subschema produced each location, which is what
// near-misses (near-miss.ts) are built from.
import { fragmentValue, pathPointer } from '../json/pointer.ts'
import { isObject as isJsonObject, type Json } from '../json/value.ts'

export type Schema = Readonly<Record<string, unknown>>
export type Path = readonly (string | number)[]

/** A location of a generated value and the (merged) subschema it was generated from. */
export interface Site {
  readonly path: Path
  readonly schema: Schema
}

export interface Generated {
  readonly value: unknown
  readonly sites: readonly Site[]
}

/** A small deterministic generator of numbers in [0, 1) (mulberry32), so that runs repeat. */
export function random (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const MAX_DEPTH = 16
// What the generator builds at most. A bound the form demands beyond these (`"minItems": 1e9`) is
// no allocation: the value is not built, and the checks that needed it say why.
export const MAX_ITEMS = 1000
export const MAX_LENGTH = 10_000
export const MAX_MEMBERS = 1000
/** Steps (values proposed at any depth, in branches given up too) to one value: arrays of arrays and unions multiply. */
export const MAX_PARTS = 10_000
/** A value of each format the generator knows, valid by the format's own standard. */
export const FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  duration: 'P1D',
  email: 'someone@example.com',
  'idn-email': 'someone@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/a',
  'uri-reference': '/a',
  iri: 'https://example.com/a',
  'iri-reference': '/a',
  'uri-template': '/a/{b}',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  'json-pointer': '/a',
  'relative-json-pointer': '0',
  regex: '^a$'
}
const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']

/**
 * No value from this branch; `why` when a bound of the form is past what the checker builds. Not
 * an Error: it is thrown thousands of times on a form of recursive unions, and a stack trace each
 * time would cost more than the search itself.
 */
class Fail {
  constructor (readonly why?: string) {}
}

const where = (path: Path): string => pathPointer(path) || '(the top)'

const isObject = isJsonObject as (value: unknown) => value is Schema

/** The subschema a local `$ref` names (`#`, `#/json/pointer`, or a `$anchor`), if any. */
export function resolve (root: Schema, ref: string): Schema | undefined {
  const node = fragmentValue(root as Json, ref)
  return isObject(node) ? node : undefined
}

/**
 * One schema from a $ref's target, allOf's members and the schema's own keywords: properties and
 * required are united, other keywords taken from the last that names them. A proposal only: the
 * judge has the last word.
 */
function flatten (root: Schema, schema: Schema, seen = 0): Schema {
  if (seen > MAX_DEPTH) throw new Fail()
  const { $ref, allOf, ...own } = schema
  const parts: Schema[] = []
  if (typeof $ref === 'string') {
    const target = resolve(root, $ref)
    if (target === undefined) throw new Fail()
    parts.push(flatten(root, target, seen + 1))
  }
  if (Array.isArray(allOf)) for (const part of allOf) if (isObject(part)) parts.push(flatten(root, part, seen + 1))
  if (parts.length === 0) return schema
  parts.push(own)
  const merged: Record<string, unknown> = {}
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isObject(merged[key]) && isObject(value)) merged[key] = { ...merged[key], ...value }
      else if (key === 'required' && Array.isArray(merged[key]) && Array.isArray(value)) merged[key] = [...merged[key], ...value]
      else merged[key] = value
    }
  }
  return merged
}

function kinds (schema: Schema): string[] {
  const { type } = schema
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return ['object']
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema || 'maxItems' in schema) return ['array']
  if ('minLength' in schema || 'maxLength' in schema || 'pattern' in schema || 'format' in schema) return ['string']
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema ||
    'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema) return ['number']
  return TYPES
}

const count = (value: unknown, fallback: number): number => typeof value === 'number' ? value : fallback

/** One value in the making: the form it resolves `$ref`s in, how it varies, and what it built so far. */
interface Run {
  readonly root: Schema
  readonly rng: () => number
  readonly small: boolean
  readonly sites: Site[]
  parts: number
  /** The first bound of the form found past what the checker builds. */
  beyond: string | undefined
}

/**
 * A value for `root`, varied by `rng`: which union branch, which optional members, how long. The
 * first proposal (`small`) keeps to the least the form asks for. Undefined when nothing came out;
 * then `failure.why` says why, if a bound of the form is past what the checker builds.
 */
export function generate (root: Schema, rng: () => number, small = false, failure: { why?: string } = {}): Generated | undefined {
  const run: Run = { root, rng, small, sites: [], parts: 0, beyond: undefined }
  try {
    return { value: value(run, root, [], 0), sites: run.sites }
  } catch (error) {
    if (!(error instanceof Fail)) throw error
    if (run.beyond !== undefined) failure.why = run.beyond
    return undefined
  }
}

const pick = <T>(run: Run, items: readonly T[]): T => items[run.small ? 0 : Math.floor(run.rng() * items.length)] as T

function past (run: Run, why: string): Fail {
  run.beyond ??= why
  return new Fail(why)
}

function value (run: Run, raw: unknown, path: Path, depth: number): unknown {
  if (++run.parts > MAX_PARTS) throw past(run, `building a value of s took more than ${MAX_PARTS} steps`)
  if (raw === true) return run.small ? null : pick(run, [null, 0, 'a', true])
  if (!isObject(raw) || depth > MAX_DEPTH) throw new Fail()
  const schema = flatten(run.root, raw)
  const union = Array.isArray(schema['anyOf']) ? schema['anyOf'] : Array.isArray(schema['oneOf']) ? schema['oneOf'] : undefined
  if (union !== undefined && union.length > 0) return unionValue(run, schema, union, path, depth)
  run.sites.push({ path, schema })
  if ('const' in schema) return schema['const']
  if (Array.isArray(schema['enum'])) {
    if (schema['enum'].length === 0) throw new Fail()
    return pick(run, schema['enum'])
  }
  const kind = pick(run, kinds(schema))
  switch (kind) {
    case 'object': return object(run, schema, path, depth)
    case 'array': return array(run, schema, path, depth)
    case 'string': return string(run, schema, path)
    case 'integer': case 'number': return number(run, schema, kind === 'integer')
    case 'boolean': return run.small || run.rng() < 0.5
    default: return null
  }
}

/** A value of the first branch of `union` (anyOf or oneOf) that yields one, with the schema's other keywords. */
function unionValue (run: Run, schema: Schema, union: readonly unknown[], path: Path, depth: number): unknown {
  const { anyOf, oneOf, ...rest } = schema
  // Deep down, prefer branches without references, so recursion ends.
  const order = union.map((_, i) => i).sort((a, b) =>
    depth > 4 ? refs(union[a]) - refs(union[b]) : run.small ? 0 : run.rng() - 0.5)
  for (const i of order) {
    const branch = union[i]
    if (!isObject(branch)) continue
    const kept = run.sites.length
    try {
      return value(run, { ...rest, ...flatten(run.root, branch) }, path, depth + 1)
    } catch (error) {
      if (!(error instanceof Fail)) throw error
      // what a branch given up on generated is no part of the value
      run.sites.length = kept
    }
  }
  throw new Fail()
}

function object (run: Run, schema: Schema, path: Path, depth: number): object {
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  const required = Array.isArray(schema['required']) ? schema['required'].filter((n): n is string => typeof n === 'string') : []
  const least = Math.max(required.length, count(schema['minProperties'], 0))
  if (least > MAX_MEMBERS) throw past(run, `${where(path)} asks for ${least} members, more than the checker builds (${MAX_MEMBERS})`)
  const names = new Set(required)
  for (const name of Object.keys(properties)) if (!run.small && names.size < MAX_MEMBERS && run.rng() < 0.5) names.add(name)
  // members beyond the named ones, where minProperties asks for more
  for (let i = 0; names.size < count(schema['minProperties'], 0) && i < 2 * MAX_MEMBERS; i++) names.add(`m${i}`)
  const out: Record<string, unknown> = {}
  for (const name of names) {
    const member = properties[name] ?? (isObject(schema['additionalProperties']) ? schema['additionalProperties'] : true)
    Object.defineProperty(out, name, { value: value(run, member, [...path, name], depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return out
}

function array (run: Run, schema: Schema, path: Path, depth: number): unknown[] {
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : []
  const min = count(schema['minItems'], 0)
  if (min > MAX_ITEMS || prefix.length > MAX_ITEMS) {
    throw past(run, `${where(path)} asks for ${Math.max(min, prefix.length)} items, more than the checker builds (${MAX_ITEMS})`)
  }
  const max = count(schema['maxItems'], min + 3)
  const length = Math.max(prefix.length > max ? max : 0, run.small ? min : min + Math.floor(run.rng() * (Math.min(max, min + 3) - min + 1)))
  const items = schema['items'] === undefined ? true : schema['items']
  const out: unknown[] = []
  for (let i = 0; i < length; i++) out.push(value(run, i < prefix.length ? prefix[i] : items, [...path, i], depth + 1))
  return out
}

function string (run: Run, schema: Schema, path: Path): string {
  if (typeof schema['format'] === 'string' && FORMATS[schema['format']] !== undefined) return FORMATS[schema['format']] as string
  const min = count(schema['minLength'], 0)
  if (min > MAX_LENGTH) throw past(run, `${where(path)} asks for ${min} characters, more than the checker builds (${MAX_LENGTH})`)
  const max = count(schema['maxLength'], min + 12)
  const length = run.small ? Math.max(min, Math.min(1, max)) : min + Math.floor(run.rng() * (Math.min(max, min + 12) - min + 1))
  const letters = 'gptaddressform'
  return letters.repeat(Math.ceil(length / letters.length)).slice(0, length)
}

function number (run: Run, schema: Schema, integer: boolean): number {
  const step = typeof schema['multipleOf'] === 'number' ? schema['multipleOf'] : integer ? 1 : undefined
  let low = count(schema['minimum'], -Infinity)
  let high = count(schema['maximum'], Infinity)
  if (typeof schema['exclusiveMinimum'] === 'number') low = Math.max(low, schema['exclusiveMinimum'] + (step ?? 0.5))
  if (typeof schema['exclusiveMaximum'] === 'number') high = Math.min(high, schema['exclusiveMaximum'] - (step ?? 0.5))
  const start = Number.isFinite(low) ? low : Number.isFinite(high) ? Math.min(high, 0) : 0
  const span = Number.isFinite(high) ? high - start : 10
  let n = run.small ? start : start + run.rng() * Math.min(span, 10)
  if (step !== undefined) n = Math.ceil(n / step) * step
  return integer || step !== undefined ? n : Math.round(n * 4) / 4
}

const REFS = new WeakMap<object, number>()

/** How many `$ref`s a branch holds, counted once a branch, without recursion. */
function refs (schema: unknown): number {
  if (schema === null || typeof schema !== 'object') return 0
  const known = REFS.get(schema)
  if (known !== undefined) return known
  let n = 0
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (!Array.isArray(node) && typeof (node as Record<string, unknown>)['$ref'] === 'string') n++
    for (const member of Object.values(node)) stack.push(member)
  }
  REFS.set(schema, n)
  return n
}
