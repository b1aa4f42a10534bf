// fastify-gpt/unroll: draft §4.2 as a function. Every cycle of local `$ref`s becomes levels
// name1 ... nameN in `$defs`, each leading to the next, the last with `false` where the cycle would
// go on: no value the result admits nests the cycle more than N deep. Semantics: docs/forms.md.
import { GPT_ERR_UNROLL } from '../errors.ts'
import { applicators } from '../json/applicators.ts'
import { freezeJson } from '../json/freeze.ts'
import { escape, refPointer, unescape, valueAt } from '../json/pointer.ts'
import { stronglyConnected } from '../graph.ts'
import { isObject, type Json, type JsonObject } from '../json/value.ts'

export interface UnrollOptions {
  /**
   * How many schemas of one cycle may apply one inside another along any path through a value:
   * every `$ref` from a schema of the cycle to a schema of the same cycle is one level down. 1
   * leaves no recursion at all. A positive integer.
   */
  readonly depth: number
}

// Keywords whose subschemas apply to the value or to its parts: a `$ref` under them is followed.
const SINGLE = new Set(applicators('one'))
const LISTS = new Set(applicators('list'))
const MAPS = new Set(applicators('map', 'part', 'in-place'))
const DEFS = new Set(applicators('map', 'definition'))
// What the levels cannot carry: the targets move into the root's `$defs`, where these would mean
// something else (another base URI, an anchor twice) or nothing we can follow.
const DYNAMIC = ['$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor']
const DROPPED = new Set(['$defs', 'definitions', '$anchor', '$id', '$schema'])
// A form that admits no finite value comes back as one that admits nothing, and says so.
const NOTHING: JsonObject = Object.freeze({ not: {} })

const shown = (pointer: string): string => (pointer === '' ? 'the root' : pointer)
const refuse = (detail: string): never => { throw new GPT_ERR_UNROLL(detail) }

/** Every subschema position below `schema`, in applicator keywords only (or `$defs` too). */
function eachChild (schema: JsonObject, at: string, withDefs: boolean, visit: (child: Json, pointer: string) => void): void {
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${escape(key)}`
    if (SINGLE.has(key)) visit(value, here)
    else if (LISTS.has(key) && Array.isArray(value)) value.forEach((item: Json, i) => visit(item, `${here}/${i}`))
    else if ((MAPS.has(key) || (withDefs && DEFS.has(key))) && isObject(value)) {
      for (const [name, item] of Object.entries(value)) visit(item, `${here}/${escape(name)}`)
    }
  }
}

/** The schema a local `$ref` names and its pointer, written one way only; refuses any other ref. */
function locate (form: Json, ref: Json | undefined, at: string): { pointer: string, schema: Json } {
  const where = `the $ref at ${at}/$ref`
  if (typeof ref !== 'string') return refuse(`${where} is not a string`)
  if (!ref.startsWith('#')) return refuse(`${where} ("${ref}") leaves the form: only refs within it ("#/...") can be unrolled`)
  if (ref !== '#' && !ref.startsWith('#/')) return refuse(`${where} ("${ref}") names an $anchor: write it as a JSON Pointer ("#/$defs/...")`)
  const decoded = refPointer(ref)
  if (decoded === undefined) return refuse(`${where} ("${ref}") is not a valid URI fragment`)
  const schema = valueAt(form, decoded)
  if (schema === undefined) return refuse(`${where} ("${ref}") does not resolve within the form`)
  if (typeof schema !== 'boolean' && !isObject(schema)) return refuse(`${where} ("${ref}") names a value that is not a schema`)
  // The pointer written one way: each token unescaped, then escaped again ("~2" becomes "~02").
  const pointer = decoded === '' ? '' : decoded.slice(1).split('/').map((token) => `/${escape(unescape(token))}`).join('')
  return { pointer, schema }
}

/**
 * Every `$ref` of the form (in `$defs` too, and in whatever a `$ref` names), by the pointer of the
 * schema holding it; refuses what cannot be followed.
 */
function collectRefs (form: JsonObject): Map<string, { pointer: string, schema: Json }> {
  const refs = new Map<string, { pointer: string, schema: Json }>()
  const walked = new Set<string>()
  const visit = (schema: Json, at: string): void => {
    walked.add(at)
    if (!isObject(schema)) return
    for (const key of DYNAMIC) if (key in schema) refuse(`"${key}" at ${shown(at)} resolves at run time: only $ref can be unrolled`)
    if (at !== '' && '$id' in schema) refuse(`"$id" at ${at} starts a resource of its own, whose refs cannot move out of it`)
    if ('$ref' in schema) refs.set(at, locate(form, schema['$ref'], at))
    eachChild(schema, at, true, visit)
  }
  visit(form, '')
  // A $ref may name a schema outside every applicator (under "default", say): it is walked too.
  for (const { pointer, schema } of refs.values()) if (!walked.has(pointer)) visit(schema, pointer)
  return refs
}

interface Graph {
  /** Schemas that a `$ref` names, and the root (''), by pointer. */
  readonly nodes: Map<string, Json>
  /** From a node to the nodes it leads to: through a `$ref` (a level down) or by containing it in place. */
  readonly edges: Map<string, Array<{ to: string, ref: boolean }>>
}

/**
 * The nodes and edges met from each node's schema in applicator positions, up to the nodes it
 * contains (their own edges are theirs). A node contained in place is reached with the same value,
 * so it counts as a way round a cycle but not as a level.
 */
function buildGraph (form: JsonObject, refs: Map<string, { pointer: string, schema: Json }>): Graph {
  const nodes = new Map<string, Json>([['', form]])
  for (const { pointer, schema } of refs.values()) nodes.set(pointer, schema)
  const edges = new Map<string, Array<{ to: string, ref: boolean }>>()
  for (const [from, schema] of nodes) {
    const out: Array<{ to: string, ref: boolean }> = []
    const visit = (child: Json, at: string, start = false): void => {
      if (!start && nodes.has(at)) {
        out.push({ to: at, ref: false })
        return
      }
      if (!isObject(child)) return
      const target = refs.get(at)
      if (target !== undefined) out.push({ to: target.pointer, ref: true })
      eachChild(child, at, false, visit)
    }
    visit(schema, from, true)
    edges.set(from, out)
  }
  return { nodes, edges }
}

/**
 * Strongly connected components, each after every component it leads to (Tarjan); those the root
 * does not reach too, so that a cycle only they hold is not left behind.
 */
function components (graph: Graph): string[][] {
  return stronglyConnected(graph.nodes.keys(), (node) => (graph.edges.get(node) ?? []).map(({ to }) => to))
}

/** A level of a cycle, or `undefined` outside every cycle. */
interface Level { readonly cycle: number, readonly k: number }

/**
 * The form with every cycle of local `$ref`s unrolled to `depth` levels (draft §4.2). The result is
 * a new plain object; a form without recursion comes back as a copy. Each schema on a cycle appears
 * once per level in the root's `$defs` (named after it: node1 ... nodeN), so the result grows as
 * depth × the size of the schemas on cycles. Throws GPT_ERR_UNROLL for a `$ref` it cannot follow
 * (not within the form, an `$anchor`, inside a nested `$id`), `$dynamicRef` and its kin, or a bad depth.
 */
export function unroll (form: object, options: UnrollOptions): JsonObject {
  const depth = options?.depth
  if (typeof depth !== 'number' || !Number.isSafeInteger(depth) || depth < 1) refuse(`depth must be a positive integer, not ${String(depth)}`)
  if (!isObject(form)) return refuse('the form must be a JSON Schema object')
  const source = freezeJson(form, 'unroll()') as JsonObject
  const refs = collectRefs(source)
  const graph = buildGraph(source, refs)
  const order = components(graph)
  const cycleOf = new Map<string, number>()
  order.forEach((members, i) => {
    const self = members.length === 1 && (graph.edges.get(members[0] as string) ?? []).some((e) => e.ref && e.to === members[0])
    if (members.length > 1 || self) for (const member of members) cycleOf.set(member, i)
  })
  if (cycleOf.size === 0) return structuredClone(source) as JsonObject

  const names = nameLevels(order.flat().reverse(), cycleOf, depth)
  const defs = new Map<string, Json>()
  const enter = (level: Level | undefined, pointer: string): Level | undefined => {
    const cycle = cycleOf.get(pointer)
    if (cycle === undefined) return undefined
    return level?.cycle === cycle ? level : { cycle, k: 1 }
  }
  // Where a $ref leads from a level: the next level of its own cycle, level 1 of another, the
  // schema itself off every cycle, or `false` past the last level.
  const lead = (pointer: string, level: Level | undefined): Json => {
    const cycle = cycleOf.get(pointer)
    const k = cycle === undefined ? 0 : level?.cycle === cycle ? level.k + 1 : 1
    if (k > depth) return false
    const name = names.get(`${k}:${pointer}`) as string
    return defs.get(name) === false ? false : `#/$defs/${encodeURIComponent(escape(name))}`
  }
  const emit = (schema: Json, at: string, level: Level | undefined, start: boolean): Json => {
    if (!isObject(schema)) return structuredClone(schema)
    if (!start && graph.nodes.has(at)) level = enter(level, at)
    const out: Record<string, Json> = {}
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key)) continue
      const here = `${at}/${escape(key)}`
      if (key === '$ref') {
        const to = lead((refs.get(at) as { pointer: string }).pointer, level)
        if (to === false) return false // a $ref applies beside its siblings: the schema admits nothing
        out[key] = to
      } else if (SINGLE.has(key)) {
        out[key] = emit(value, here, level, false)
      } else if (LISTS.has(key) && Array.isArray(value)) {
        out[key] = value.map((item: Json, i) => emit(item, `${here}/${i}`, level, false))
      } else if (MAPS.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, emit(item, `${here}/${escape(name)}`, level, false)]))
      } else {
        out[key] = structuredClone(value)
      }
    }
    return prune(out)
  }

  // Sinks first, and within a cycle the last level first: every $ref leads to a level already built.
  for (const members of order) {
    const cycle = cycleOf.get(members[0] as string)
    for (let k = cycle === undefined ? 0 : depth; k >= (cycle === undefined ? 0 : 1); k--) {
      for (const member of members) {
        if (member === '' && k <= 1) continue // the root's first level is the result itself
        const name = names.get(`${k}:${member}`) as string
        defs.set(name, emit(graph.nodes.get(member) as Json, member, cycle === undefined ? undefined : { cycle, k }, true))
      }
    }
  }
  const root = emit(source, '', enter(undefined, ''), true)
  if (root === false) return structuredClone(NOTHING) as JsonObject
  const byLevel = [...names.entries()].sort(([a], [b]) => Number.parseInt(a) - Number.parseInt(b)).map(([, name]) => name)
  const kept = reachable(root as JsonObject, defs, byLevel)
  const resource = Object.fromEntries(['$schema', '$id'].filter((key) => key in source).map((key) => [key, source[key] as Json]))
  return { ...resource, ...(root as JsonObject), ...(kept.size === 0 ? {} : { $defs: Object.fromEntries(kept) }) }
}

/**
 * A name in the root's `$defs` for each level of each node (`k:pointer`; level 0 off every cycle).
 * A definition of the root's `$defs` off every cycle keeps its name; the levels of one named `node`
 * are node1 ... nodeN; anything else is named after its last token.
 */
function nameLevels (nodes: readonly string[], cycleOf: ReadonlyMap<string, number>, depth: number): Map<string, string> {
  const names = new Map<string, string>()
  const taken = new Set<string>()
  const own = (pointer: string): string | undefined => /^\/(?:\$defs|definitions)\/([^/]+)$/.exec(pointer)?.[1]
  for (const pointer of nodes) {
    const name = own(pointer)
    if (pointer !== '' && !cycleOf.has(pointer) && name !== undefined && !taken.has(unescape(name))) {
      names.set(`0:${pointer}`, unescape(name))
      taken.add(unescape(name))
    }
  }
  for (const pointer of nodes) {
    const levels = cycleOf.has(pointer) ? Array.from({ length: depth }, (_, i) => i + 1) : [0]
    if (names.has(`0:${pointer}`)) continue
    const last = pointer === '' ? 'root' : unescape(pointer.slice(pointer.lastIndexOf('/') + 1))
    let base = own(pointer) === undefined ? last.replace(/[^A-Za-z0-9_]/g, '_') || 'schema' : last
    if (/^\d/.test(base) || /\d$/.test(base)) base = `${base}_`
    const candidates = (): string[] => levels.map((k) => (k === 0 ? base : `${base}${k}`))
    while (candidates().some((name) => taken.has(name))) base = `${base}_`
    candidates().forEach((name, i) => {
      names.set(`${levels[i] as number}:${pointer}`, name)
      taken.add(name)
    })
  }
  return names
}

/**
 * What a schema that admits nothing (`false`) leaves of its parent: an alternative of anyOf or
 * oneOf drops out (none left: the parent admits nothing), as does the parent of a false allOf, a
 * required member of an object, or a required item of an array.
 */
function prune (schema: Record<string, Json>): Json {
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key]
    if (!Array.isArray(branches)) continue
    const left = branches.filter((branch) => branch !== false)
    if (left.length === 0) return false
    schema[key] = left
  }
  if (Array.isArray(schema['allOf']) && schema['allOf'].includes(false)) return false
  const only = (type: string): boolean => schema['type'] === type || (Array.isArray(schema['type']) && schema['type'].length === 1 && schema['type'][0] === type)
  const properties = schema['properties']
  if (isObject(properties)) {
    const required = Array.isArray(schema['required']) ? schema['required'] : []
    for (const [name, member] of Object.entries(properties)) {
      if (member !== false) continue
      if (required.includes(name) && only('object')) return false
      // Closed, with no pattern to admit it: the member is refused either way, and fewer decoders stumble on `false`.
      if (!required.includes(name) && schema['additionalProperties'] === false && !('patternProperties' in schema)) {
        const rest = { ...properties }
        delete rest[name]
        schema['properties'] = rest
      }
    }
  }
  const minItems = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : []
  if (only('array') && prefix.some((item, i) => item === false && i < minItems)) return false
  if (only('array') && schema['items'] === false && minItems > prefix.length) return false
  return schema
}

/** The levels the result reaches from its root, in the order they were named. */
function reachable (root: JsonObject, defs: ReadonlyMap<string, Json>, order: readonly string[]): Map<string, Json> {
  const seen = new Set<string>()
  const queue: Json[] = [root]
  // A worklist, not recursion: the levels chain depth deep.
  for (let value = queue.pop(); value !== undefined; value = queue.pop()) {
    if (Array.isArray(value)) {
      queue.push(...value)
    } else if (isObject(value)) {
      const ref = value['$ref']
      if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
        const name = unescape(decodeURIComponent(ref.slice('#/$defs/'.length)))
        if (!seen.has(name) && defs.has(name)) {
          seen.add(name)
          queue.push(defs.get(name) as Json)
        }
      }
      queue.push(...Object.values(value))
    }
  }
  return new Map(order.filter((name) => seen.has(name)).map((name) => [name, defs.get(name) as Json]))
}
