// draft §4.2: recursion should be bounded by the schema itself. A cycle of local $refs is not.
import { stronglyConnected } from '../graph.ts'
import { isObject, refTarget, resolve, walk, type Json } from './schema.ts'

export interface Cycle {
  /** The `$ref` that closes the cycle. */
  readonly pointer: string
  /** The `$ref`s round the cycle, in order, ending with `pointer`: the last LISTED of a longer one. */
  readonly refs: readonly string[]
  /** How many `$ref`s the cycle passes. */
  readonly length: number
}

export interface Recursion {
  /** Each cycle found, reported once, at the `$ref` that closes it. */
  readonly cycles: readonly Cycle[]
  /** Every `$ref` that stands on some cycle. */
  readonly cyclic: ReadonlySet<string>
}

// A message names at most this many $refs of one cycle, so that a form of thousands of them
// costs as many steps as it has schemas and $refs, not their product.
const LISTED = 12

interface Edge { readonly to: number, readonly ref: string | undefined }

/**
 * The cycles of local `$ref`s. Nodes are every subschema; a schema leads to the subschemas it
 * applies (not its `$defs`: a definition applies only where a `$ref` leads) and a `$ref` to its
 * target, so a cycle may pass through a schema that contains, in place, another one's target.
 * One depth-first search, without recursion: a back edge closes a cycle; the strongly connected
 * components (graph.ts) say which `$ref`s stand on one.
 */
export function refCycles (form: Json): Recursion {
  const pointers: string[] = []
  const edges: Edge[][] = []
  const ids = new Map<Json, number>()
  const refs: Array<{ from: number, at: string, to: string }> = []
  walk(form, (schema, place) => {
    const id = pointers.length
    pointers.push(place.pointer)
    edges.push([])
    if (isObject(schema) && !ids.has(schema)) ids.set(schema, id)
    const parent = place.parent === undefined ? undefined : ids.get(place.parent)
    if (parent !== undefined && place.role !== 'definition') edges[parent]?.push({ to: id, ref: undefined })
    const to = refTarget(isObject(schema) ? schema['$ref'] : undefined)
    if (to !== undefined) refs.push({ from: id, at: `${place.pointer}/$ref`, to })
  })
  for (const { from, at, to } of refs) {
    // Only a schema can be applied; the lint meets each in its walk (a form is a tree).
    const target = resolve(form, to)
    const id = isObject(target) ? ids.get(target) : undefined
    if (id !== undefined) edges[from]?.push({ to: id, ref: at })
  }

  const n = pointers.length
  const index = new Array<number>(n).fill(-1)
  const onPath = new Array<boolean>(n).fill(false)
  const entered = new Array<number>(n).fill(0) // refs on the path when the node was entered
  const path: Array<{ node: number, next: number, via: string | undefined }> = []
  const pathRefs: string[] = []
  const cycles: Cycle[] = []
  const closed = new Set<string>()
  let counter = 0

  const enter = (node: number, via: string | undefined): void => {
    if (via !== undefined) pathRefs.push(via)
    index[node] = counter++
    entered[node] = pathRefs.length
    onPath[node] = true
    path.push({ node, next: 0, via })
  }
  const close = (start: number, via: string | undefined): void => {
    const length = pathRefs.length - start + (via === undefined ? 0 : 1)
    const listed = [...pathRefs.slice(Math.max(start, pathRefs.length - LISTED + (via === undefined ? 0 : 1))), ...(via === undefined ? [] : [via])]
    const pointer = listed[listed.length - 1] as string
    if (closed.has(pointer)) return
    closed.add(pointer)
    cycles.push({ pointer, refs: listed, length })
  }
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue
    enter(root, undefined)
    while (path.length > 0) {
      const frame = path[path.length - 1] as { node: number, next: number, via: string | undefined }
      const edge = edges[frame.node]?.[frame.next++]
      if (edge !== undefined) {
        if (index[edge.to] === -1) enter(edge.to, edge.ref)
        else if (onPath[edge.to] === true) close(entered[edge.to] as number, edge.ref)
        continue
      }
      path.pop()
      onPath[frame.node] = false
      if (frame.via !== undefined) pathRefs.pop()
    }
  }
  const component = new Array<number>(n).fill(-1)
  stronglyConnected(pointers.keys(), (node) => (edges[node] ?? []).map(({ to }) => to)).forEach((members, c) => { for (const member of members) component[member] = c })
  const cyclic = new Set(refs.filter(({ from, at }) => edges[from]?.some((e) => e.ref === at && component[e.to] === component[from]))
    .map(({ at }) => at))
  return { cycles, cyclic }
}
