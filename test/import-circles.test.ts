// The circle check of `npm run lint` (scripts/import-circles.ts): its search against reachability
// computed apart, on random graphs, and its reading of import statements.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { circles, importsOf } from '../scripts/import-circles.ts'

/** Whether `to` is reachable from `from` by one edge or more, by breadth-first search. */
function reaches (graph: ReadonlyMap<string, readonly string[]>, from: string, to: string): boolean {
  const seen = new Set<string>()
  const queue = [...(graph.get(from) ?? [])]
  while (queue.length > 0) {
    const node = queue.shift() as string
    if (node === to) return true
    if (seen.has(node)) continue
    seen.add(node)
    queue.push(...(graph.get(node) ?? []))
  }
  return false
}

describe('the import circle check', () => {
  it('finds exactly the modules that reach themselves, grouped by mutual reach', () => {
    const edges = fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { maxLength: 20 })
    fc.assert(fc.property(edges, (pairs) => {
      const graph = new Map<string, string[]>()
      for (let n = 0; n < 8; n++) graph.set(`m${n}`, [])
      for (const [a, b] of pairs) graph.get(`m${a}`)?.push(`m${b}`)
      const found = circles(graph)
      const inCircle = new Set(found.flat())
      for (const node of graph.keys()) assert.equal(inCircle.has(node), reaches(graph, node, node), node)
      for (const circle of found) {
        for (const a of circle) for (const b of circle) if (a !== b) assert.ok(reaches(graph, a, b), `${a} -> ${b}`)
      }
    }), { numRuns: 300 })
  })

  it('reads static, type-only, re-exporting, bare and dynamic imports, and only relative ones', () => {
    const text = [
      "import { a } from './a.ts'",
      "import type { B } from '../b.ts'",
      "export { c } from './c.ts'",
      "import './d.ts'",
      "const e = await import('./e.js')",
      "import fastify from 'fastify'",
      "// import { f } from './f.ts' (a comment, not an import)"
    ].join('\n')
    assert.deepEqual(importsOf('/r/src/x/m.ts', text).sort(), ['/r/src/b.ts', '/r/src/x/a.ts', '/r/src/x/c.ts', '/r/src/x/d.ts', '/r/src/x/e.ts'])
  })
})
