// draft §4.2: recursion should be bounded by the schema itself. A cycle of local $refs is not.
import { isObject, refTarget, resolve, walk, type Json } from './schema.ts'

export interface Cycle {
  /** The `$ref` that closes the cycle. */
  readonly pointer: string
  /** The `$ref`s round the cycle, in order. */
  readonly refs: readonly string[]
}

/** Every cycle of local `$ref`s, each reported once, at the `$ref` that closes it. */
export function refCycles (form: Json): Cycle[] {
  // A $ref leads from the innermost schema it stands in that some $ref names (or the root).
  const refs: Array<{ at: string, to: string }> = []
  walk(form, (schema, place) => {
    const to = refTarget(isObject(schema) ? schema['$ref'] : undefined)
    if (to !== undefined && resolve(form, to) !== undefined) refs.push({ at: `${place.pointer}/$ref`, to })
  })
  const targets = [...new Set(['', ...refs.map((ref) => ref.to)])].sort((a, b) => b.length - a.length)
  const owner = (at: string): string => targets.find((t) => t === '' || at === t || at.startsWith(`${t}/`)) ?? ''
  const edges = new Map<string, Array<{ at: string, to: string }>>()
  for (const ref of refs) {
    const from = owner(ref.at.slice(0, -'/$ref'.length))
    edges.set(from, [...(edges.get(from) ?? []), ref])
  }
  const cycles: Cycle[] = []
  const done = new Set<string>()
  const path: Array<{ node: string, at: string }> = []
  const visit = (node: string): void => {
    const open = path.findIndex((step) => step.node === node)
    if (open !== -1) {
      const round = path.slice(open).map((step) => step.at)
      cycles.push({ pointer: round[round.length - 1] as string, refs: round })
      return
    }
    if (done.has(node)) return
    for (const edge of edges.get(node) ?? []) {
      path.push({ node, at: edge.at })
      visit(edge.to)
      path.pop()
    }
    done.add(node)
  }
  visit('')
  for (const target of targets) visit(target)
  return cycles
}
