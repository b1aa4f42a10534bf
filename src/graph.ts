// Strongly connected components (Tarjan), for every search for cycles over a form's `$ref`s (lint's
// recursion rule, unroll), over the addresses a checked address names (the checker's link loops)
// and over our own imports (scripts/import-circles.ts). Iterative: a form may chain thousands of
// schemas, more than the call stack holds.

/**
 * The strongly connected components of the graph reached from `nodes` by `next`, each listed after
 * every component it leads to (Tarjan's order). Nodes are visited in the order given, and a node's
 * successors in the order `next` returns them.
 */
export function stronglyConnected<T> (nodes: Iterable<T>, next: (node: T) => Iterable<T>): T[][] {
  const index = new Map<T, number>()
  const low = new Map<T, number>()
  const stack: T[] = []
  const onStack = new Set<T>()
  const out: T[][] = []
  const path: Array<{ readonly node: T, readonly successors: Iterator<T> }> = []
  const enter = (node: T): void => {
    index.set(node, index.size)
    low.set(node, index.size - 1)
    stack.push(node)
    onStack.add(node)
    path.push({ node, successors: next(node)[Symbol.iterator]() })
  }
  for (const root of nodes) {
    if (index.has(root)) continue
    enter(root)
    while (path.length > 0) {
      const frame = path[path.length - 1] as { readonly node: T, readonly successors: Iterator<T> }
      const step = frame.successors.next()
      if (step.done !== true) {
        const to = step.value
        if (!index.has(to)) enter(to)
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number))
        continue
      }
      path.pop()
      const parent = path[path.length - 1]
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number))
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: T[] = []
        let member: T
        do {
          member = stack.pop() as T
          onStack.delete(member)
          component.push(member)
        } while (member !== frame.node)
        out.push(component)
      }
    }
  }
  return out
}
