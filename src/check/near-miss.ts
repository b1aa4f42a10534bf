import { generate, random, type Generated, type Path, type Schema } from './generate.ts'
import type { Admits } from './judge.ts'
import { pathPointer } from '../json/pointer.ts'
import { isObject as isJsonObject } from '../json/value.ts'

// Near-misses: an admitted value with one location changed so that one keyword of the form refuses
// it. The judge decides each; only a value it refuses, for the keyword aimed at, is kept.

export interface NearMiss {
  /** The keyword that refuses it (draft §5.2 (3): the form, all of it, is the check). */
  readonly keyword: string
  readonly value: unknown
  /** Where the change is, as a JSON Pointer. */
  readonly at: string
}

/** The keywords near-misses are built for. */
export const KEYWORDS = ['type', 'required', 'additionalProperties', 'maxLength', 'minLength', 'enum', 'const', 'pattern',
  'format', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'maxItems', 'minItems', 'uniqueItems',
  'maxProperties', 'minProperties'] as const

const length = (text: string): number => [...text].length

/** Most characters, items or members a near-miss is made of: a bound past it is not built. */
export const NEAR_MAX = 100_000
/** Most bytes of JSON text the items or members added to make a near-miss may take. */
export const NEAR_BYTES = 1024 * 1024
/** Most verdicts asked for the near-misses of one value. */
const VERDICTS = 2000

/** A bound of s too large to build a near-miss against: the keyword's check is skipped, saying so. */
export class Beyond extends Error {}
const within = (keyword: string, bound: number, copied?: unknown): number => {
  if (bound > NEAR_MAX) throw new Beyond(`"${keyword}": ${bound} asks for a near-miss larger than the checker builds (${NEAR_MAX})`)
  // the copies added are as large as the value copied: a bound times a large value is large too
  const each = copied === undefined ? 1 : (JSON.stringify(copied) ?? 'null').length + 8
  if (bound * each > NEAR_BYTES) throw new Beyond(`"${keyword}": ${bound} asks for a near-miss larger than the checker builds (${NEAR_BYTES} bytes)`)
  return bound
}
const isObject = isJsonObject as (value: unknown) => value is Record<string, unknown>

/** A value of each JSON type: what a keyword about types or literals is tried with. */
export const ANY_TYPE: readonly unknown[] = [null, true, 0, 1.5, 'a', [], {}]
/** Strings that break common formats and patterns: impossible dates, stray brackets, bad addresses. */
const BAD_STRINGS = ['', ' ', 'a', 'zz zz', '2021-02-30', '2021-02-30T00:00:00Z', '(', '1::2::3', 'a..b@example.com', '0/a~2', '{', 'http://[::1',
  '::g', '01.2.3.4']

/**
 * Values to put in place of `current` that may make `keyword` of `schema` refuse, most likely
 * first; nothing is judged here. `item` is what an array is grown with (its last item by default).
 * Throws `Beyond` when the keyword's bound asks for a value larger than is built.
 */
export function proposals (keyword: string, schema: Schema, current: unknown, item?: unknown): unknown[] {
  const bound = schema[keyword]
  const number = (key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
  switch (keyword) {
    case 'type': {
      // a number written as a string first: what a coercing validator lets through
      const near = typeof current === 'number' || typeof current === 'boolean'
        ? [String(current), null]
        : typeof current === 'string' ? [Number.isFinite(Number(current)) && current !== '' ? Number(current) : 1, null] : ['1', 1, null, [], {}]
      return [...near, ...ANY_TYPE, ...(Array.isArray(schema['enum']) ? schema['enum'] : []), ...('const' in schema ? [schema['const']] : [])]
    }
    case 'maxLength': {
      if (typeof current !== 'string' || typeof bound !== 'number') return []
      const size = within(keyword, bound + 1)
      const last = current.at(-1) ?? 'a'
      // counted in code points (what JSON Schema counts) and in UTF-16 units (what a decoder may count)
      const near = [current + last.repeat(Math.max(0, size - length(current))), current.padEnd(size, last), 'a'.repeat(size)]
      return current.length * size <= NEAR_BYTES ? [...near, current.repeat(size)] : near
    }
    case 'minLength': return typeof current === 'string' && typeof bound === 'number'
      ? [...(bound > 0 ? [[...current].slice(0, bound - 1).join('')] : []), current.slice(0, Math.max(0, bound - 1)), '']
      : []
    case 'enum': case 'const': {
      const text = typeof current === 'string' ? current : JSON.stringify(current)
      return [`${text}x`, text.toUpperCase(), typeof current === 'number' ? current + 1 : '', null, ...ANY_TYPE, 'zz', 12345]
    }
    case 'pattern': return ['', '!', ' ', 'A', '0', `${String(current)}!`, `!${String(current)}`, ...BAD_STRINGS]
    case 'format': return ['not a ' + String(schema['format']), '', ...BAD_STRINGS]
    case 'maximum': case 'exclusiveMaximum': case 'minimum': case 'exclusiveMinimum': {
      const up = keyword === 'maximum' || keyword === 'exclusiveMaximum'
      const near = typeof bound === 'number' ? [up ? bound + 1 : bound - 1, bound, up ? bound - 1 : bound + 1, bound - 0.5, bound + 0.5] : []
      // past what a double holds exactly: a decoder that bounds by a narrower integer lets it through
      return keyword === 'maximum' || keyword === 'minimum' ? [...near, 2 ** 60, -(2 ** 60)] : near
    }
    case 'multipleOf': return typeof bound === 'number' && typeof current === 'number'
      ? [current + bound / 2, current + 1, current - 1, ...['minimum', 'maximum'].flatMap((key) => number(key) ?? [])]
      : []
    case 'maxItems': {
      if (!Array.isArray(current) || typeof bound !== 'number') return []
      const fill = item === undefined ? current.at(-1) : item
      if (fill === undefined) return []
      const size = within(keyword, bound + 1, fill)
      const copies = (count: number): unknown[] => Array.from({ length: count }, () => fill)
      return [[...current, ...copies(Math.max(0, size - current.length))], [...current, ...copies(size)]]
    }
    case 'minItems': return Array.isArray(current)
      ? [...(current.length > 0 ? [current.slice(0, -1), []] : []), current.slice(0, Math.max(0, (number('minItems') ?? 0) - 1))]
      : []
    case 'uniqueItems': {
      if (!Array.isArray(current)) return []
      const fill = item === undefined ? current.at(-1) : item
      return [...(current.length > 0 ? [[...current, current[0]]] : []), ...(fill === undefined ? [] : [[fill, fill]])]
    }
    case 'maxProperties': {
      if (!isObject(current)) return []
      // the members added hold what additionalProperties admits, where it says, else the last member's value
      const extra = schema['additionalProperties']
      const made = isObject(extra) ? generate(extra, random(1), true) : undefined
      const fill = made === undefined ? Object.values(current).at(-1) ?? null : made.value
      return [...(typeof bound === 'number' ? [widened(current, within(keyword, bound + 1, fill), fill)] : []), { ...current, zz: 1, zy: 2 }]
    }
    case 'minProperties': return isObject(current) ? [Object.fromEntries(Object.entries(current).slice(0, -1)), {}] : []
    case 'required': return isObject(current) && Array.isArray(bound)
      ? bound.filter((name) => typeof name === 'string' && Object.hasOwn(current, name))
        .map((name) => Object.fromEntries(Object.entries(current).filter(([key]) => key !== name)))
      : []
    case 'additionalProperties': {
      if (!isObject(current)) return []
      const added = [{ ...current, zz: 1 }]
      if (bound === undefined || bound === true) return added
      const properties = isObject(schema['properties']) ? schema['properties'] : {}
      let name = 'unexpected'
      while (Object.hasOwn(properties, name) || Object.hasOwn(current, name)) name += '_'
      return [...[true, 0, 'x', null, {}].map((extra) => ({ ...current, [name]: extra })), ...added]
    }
    default: return []
  }
}

/** `object` with members added, each holding `fill`, up to `size` members (counted, not recounted). */
function widened (object: Record<string, unknown>, size: number, fill: unknown): Record<string, unknown> {
  const out = { ...object }
  let members = Object.keys(out).length
  for (let i = 0; members < size; i++) {
    if (Object.hasOwn(out, `m${i}`)) continue
    out[`m${i}`] = fill
    members++
  }
  return out
}

/** `root` with the value at `path` replaced, copied along the path only. */
export function replace (root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string | number, ...(string | number)[]]
  if (Array.isArray(root)) return root.map((item, i) => i === head ? replace(item, rest, value) : item)
  const copy = { ...(root as Record<string, unknown>) }
  Object.defineProperty(copy, head, { value: replace(copy[head], rest, value), enumerable: true, writable: true, configurable: true })
  return copy
}

export function valueAt (root: unknown, path: Path): unknown {
  let node = root
  for (const step of path) node = (node as Record<string | number, unknown>)[step]
  return node
}

/** The near-misses found, and for a keyword with none, why none could be built, when known. */
export interface NearMisses {
  readonly found: NearMiss[]
  readonly beyond: Map<string, string>
}

/**
 * Near-misses of one admitted value, at most one per keyword and location and `perKeyword` per
 * keyword, preferring a change that only the keyword aimed at refuses. Stops where the judge does.
 */
export function nearMisses (generated: Generated, admits: Admits, perKeyword = Infinity, misses: NearMisses = { found: [], beyond: new Map() }): NearMisses {
  const { found, beyond } = misses
  const counts = new Map<string, number>()
  let verdicts = 0
  for (const { path, schema } of generated.sites) {
    const current = valueAt(generated.value, path)
    for (const keyword of KEYWORDS) {
      if (!(keyword in schema) || (counts.get(keyword) ?? 0) >= perKeyword) continue
      let tried: unknown[]
      try {
        tried = proposals(keyword, schema, current)
      } catch (error) {
        if (!(error instanceof Beyond)) throw error
        beyond.set(keyword, error.message)
        continue
      }
      let best: { value: unknown } | undefined
      for (const proposal of tried) {
        const value = replace(generated.value, path, proposal)
        if (++verdicts > VERDICTS) return misses
        const verdict = admits(value)
        if (verdict === undefined) return misses
        if (verdict.valid || !verdict.keywords.has(keyword)) continue
        if (verdict.keywords.size === 1) { best = { value }; break }
        best ??= { value }
      }
      if (best !== undefined) {
        found.push({ keyword, value: best.value, at: pathPointer(path) })
        counts.set(keyword, (counts.get(keyword) ?? 0) + 1)
      }
    }
  }
  return misses
}
