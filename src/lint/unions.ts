// Whether the alternatives of a oneOf can be told apart cheaply (draft §4.1: where they are
// disjoint, anyOf admits the same values and more decoders take it).
import { equal, isObject, listOf, literals, ownTypes, refTarget, resolve, type Json, type JsonObject } from './schema.ts'

/** A branch as written, or the schema its `$ref` names when that is all it is. */
function concrete (form: Json, branch: Json): Json {
  let here = branch
  for (let hops = 0; hops < 8 && isObject(here) && Object.keys(here).length === 1; hops++) {
    const target = refTarget(here['$ref'])
    const to = target === undefined ? undefined : resolve(form, target)
    if (to === undefined) break
    here = to
  }
  return here
}

const apart = (a: readonly Json[], b: readonly Json[]): boolean => a.every((x) => b.every((y) => !equal(x, y)))

/** Whether no value can satisfy both schemas, decided from their types and literals only. */
function disjoint (form: Json, x: Json, y: Json): boolean {
  const a = concrete(form, x)
  const b = concrete(form, y)
  if (a === false || b === false) return true
  if (!isObject(a) || !isObject(b)) return false
  const ta = ownTypes(a)
  const tb = ownTypes(b)
  if (ta !== undefined && tb !== undefined && ![...ta].some((t) => tb.has(t))) return true
  const la = literals(a)
  const lb = literals(b)
  if (la !== undefined && lb !== undefined && apart(la, lb)) return true
  // A member both require, with literals that differ: a tag.
  const pa = isObject(a['properties']) ? a['properties'] : {}
  const pb = isObject(b['properties']) ? b['properties'] : {}
  const rb = listOf(b['required'])
  for (const name of listOf(a['required'])) {
    if (typeof name !== 'string' || !rb.includes(name)) continue
    const sa = concrete(form, pa[name] ?? true)
    const sb = concrete(form, pb[name] ?? true)
    const va = isObject(sa) ? literals(sa) : undefined
    const vb = isObject(sb) ? literals(sb) : undefined
    if (va !== undefined && vb !== undefined && apart(va, vb)) return true
  }
  return false
}

/** Up to this many alternatives, every pair is compared; past it, the work would grow with their square. */
const PAIRWISE = 64
/** Required members of the first alternative tried as a tag shared by all, past PAIRWISE. */
const TAGS_TRIED = 8

/** Whether every pair of a schema's oneOf alternatives is disjoint, as far as can be told cheaply. */
export function disjointOneOf (form: Json, schema: JsonObject): boolean {
  const branches = listOf(schema['oneOf'])
  if (branches.length > PAIRWISE) return disjointAtOnce(form, branches)
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) if (!disjoint(form, branches[i] as Json, branches[j] as Json)) return false
  }
  return true
}

/**
 * Many alternatives, in time linear in the form: disjoint when each is a set of literals and no
 * value is in two, or each requires the same member with literals no two share (a tag). Anything
 * else is "may overlap": what could be told of it only pair by pair is not told.
 */
function disjointAtOnce (form: Json, branches: readonly Json[]): boolean {
  const alive = branches.map((branch) => concrete(form, branch)).filter((branch) => branch !== false)
  if (!alive.every(isObject)) return false
  if (noneShared(alive.map(literals))) return true
  const [first] = alive
  const tags = listOf(first?.['required']).filter((name): name is string => typeof name === 'string').slice(0, TAGS_TRIED)
  const required = alive.map((branch) => new Set(listOf(branch['required'])))
  return tags.some((tag) => noneShared(alive.map((branch, i) => {
    if (!required[i]?.has(tag)) return undefined
    const member = concrete(form, (isObject(branch['properties']) ? branch['properties'][tag] : undefined) ?? true)
    return isObject(member) ? literals(member) : undefined
  })))
}

/** Whether every set is known and no value is in two of them. */
function noneShared (sets: ReadonlyArray<readonly Json[] | undefined>): boolean {
  const seen = new Set<string>()
  for (const set of sets) {
    if (set === undefined) return false
    const own = new Set(set.map(canonical))
    for (const key of own) if (seen.has(key)) return false
    for (const key of own) seen.add(key)
  }
  return true
}

/** JSON with members in order of name: equal values (as `equal` has them) write the same. */
function canonical (value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key] as Json)}`).join(',')}}`
  return JSON.stringify(value)
}
