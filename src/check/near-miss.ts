import type { Generated, Path, Schema } from './generate.ts'
import type { Admits } from './judge.ts'
import { escape } from '../json/pointer.ts'
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
class Beyond extends Error {}
const within = (keyword: string, bound: number, copied?: unknown): number => {
  if (bound > NEAR_MAX) throw new Beyond(`"${keyword}": ${bound} asks for a near-miss larger than the checker builds (${NEAR_MAX})`)
  // the copies added are as large as the value copied: a bound times a large value is large too
  const each = copied === undefined ? 1 : (JSON.stringify(copied) ?? 'null').length + 8
  if (bound * each > NEAR_BYTES) throw new Beyond(`"${keyword}": ${bound} asks for a near-miss larger than the checker builds (${NEAR_BYTES} bytes)`)
  return bound
}
const isObject = isJsonObject as (value: unknown) => value is Record<string, unknown>

/** Other values to put in place of `current`, one list per keyword it aims at. */
function candidates (keyword: string, schema: Schema, current: unknown): unknown[] {
  const bound = schema[keyword]
  switch (keyword) {
    case 'type':
      // a number written as a string first: what a coercing validator lets through
      return typeof current === 'number' || typeof current === 'boolean'
        ? [String(current), null]
        : typeof current === 'string' ? [Number.isFinite(Number(current)) && current !== '' ? Number(current) : 1, null] : ['1', 1, null, [], {}]
    case 'maxLength': return typeof current === 'string' && typeof bound === 'number'
      ? [current + (current.at(-1) ?? 'a').repeat(Math.max(0, within(keyword, bound + 1) - length(current)))]
      : []
    case 'minLength': return typeof current === 'string' && typeof bound === 'number' && bound > 0 ? [[...current].slice(0, bound - 1).join('')] : []
    case 'enum': case 'const': {
      const text = typeof current === 'string' ? current : JSON.stringify(current)
      return [`${text}x`, text.toUpperCase(), typeof current === 'number' ? current + 1 : '', null]
    }
    case 'pattern': return ['', '!', ' ', 'A', '0', `${String(current)}!`, `!${String(current)}`]
    case 'format': return ['not a ' + String(schema['format']), '']
    case 'maximum': case 'exclusiveMaximum': return typeof bound === 'number' ? [bound + 1, bound] : []
    case 'minimum': case 'exclusiveMinimum': return typeof bound === 'number' ? [bound - 1, bound] : []
    case 'multipleOf': return typeof bound === 'number' && typeof current === 'number' ? [current + bound / 2] : []
    case 'maxItems': return Array.isArray(current) && current.length > 0 && typeof bound === 'number'
      ? [[...current, ...Array.from({ length: Math.max(0, within(keyword, bound + 1, current.at(-1)) - current.length) }, () => current.at(-1))]]
      : []
    case 'minItems': return Array.isArray(current) && current.length > 0 ? [current.slice(0, -1), []] : []
    case 'uniqueItems': return Array.isArray(current) && current.length > 0 ? [[...current, current[0]]] : []
    case 'maxProperties': return isObject(current) && typeof bound === 'number'
      ? [widened(current, within(keyword, bound + 1, Object.values(current).at(-1) ?? null))]
      : []
    case 'minProperties': return isObject(current) ? [Object.fromEntries(Object.entries(current).slice(0, -1))] : []
    default: return []
  }
}

/** `object` with members added, copies of its last value, up to `size` members (counted, not recounted). */
function widened (object: Record<string, unknown>, size: number): Record<string, unknown> {
  const out = { ...object }
  const last = Object.values(object).at(-1) ?? null
  let members = Object.keys(out).length
  for (let i = 0; members < size; i++) {
    if (Object.hasOwn(out, `m${i}`)) continue
    out[`m${i}`] = last
    members++
  }
  return out
}

/** Changes that remove or add a member rather than replace a value. */
function memberChanges (keyword: string, schema: Schema, current: unknown): unknown[] {
  if (!isObject(current)) return []
  if (keyword === 'required' && Array.isArray(schema['required'])) {
    return schema['required'].filter((name) => typeof name === 'string' && Object.hasOwn(current, name))
      .map((name) => Object.fromEntries(Object.entries(current).filter(([key]) => key !== name)))
  }
  if (keyword === 'additionalProperties' && schema['additionalProperties'] !== undefined && schema['additionalProperties'] !== true) {
    const properties = isObject(schema['properties']) ? schema['properties'] : {}
    let name = 'unexpected'
    while (Object.hasOwn(properties, name) || Object.hasOwn(current, name)) name += '_'
    return [true, 0, 'x', null, {}].map((extra) => ({ ...current, [name]: extra }))
  }
  return []
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

export const pointer = (path: Path): string => path.map((step) => `/${escape(String(step))}`).join('')

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
      let proposals: unknown[]
      try {
        proposals = [...candidates(keyword, schema, current), ...memberChanges(keyword, schema, current)]
      } catch (error) {
        if (!(error instanceof Beyond)) throw error
        beyond.set(keyword, error.message)
        continue
      }
      let best: { value: unknown } | undefined
      for (const proposal of proposals) {
        const value = replace(generated.value, path, proposal)
        if (++verdicts > VERDICTS) return misses
        const verdict = admits(value)
        if (verdict === undefined) return misses
        if (verdict.valid || !verdict.keywords.has(keyword)) continue
        if (verdict.keywords.size === 1) { best = { value }; break }
        best ??= { value }
      }
      if (best !== undefined) {
        found.push({ keyword, value: best.value, at: pointer(path) })
        counts.set(keyword, (counts.get(keyword) ?? 0) + 1)
      }
    }
  }
  return misses
}
