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

/** Whether every pair of a schema's oneOf alternatives is disjoint, as far as can be told cheaply. */
export function disjointOneOf (form: Json, schema: JsonObject): boolean {
  const branches = listOf(schema['oneOf'])
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) if (!disjoint(form, branches[i] as Json, branches[j] as Json)) return false
  }
  return true
}
