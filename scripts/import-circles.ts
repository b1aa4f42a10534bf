// Fails (exit 1) when a module of src/ reaches itself again through its imports: a circle makes a
// module's meaning depend on load order and keeps two rooms from being read apart
// (docs/architecture.md). Type-only imports count too, since a reader follows them all the same.
// Run: npm run lint (after ESLint, which enforces the folder rules).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { stronglyConnected } from '../src/graph.ts'

const root = resolve(import.meta.dirname, '..')
const src = join(root, 'src')

/** Every .ts module under `dir`. */
function modules (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return modules(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

// `import ... from './x.ts'`, `export ... from './x.ts'`, `import './x.ts'` and `import('./x.ts')`.
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'(\.[^']+)'|(?:^|\n)\s*import\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g

/** The modules of ours that `file` imports, as absolute paths. */
export function importsOf (file: string, text = readFileSync(file, 'utf8')): string[] {
  const out = new Set<string>()
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3]
    if (specifier !== undefined) out.add(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
  }
  return [...out]
}

/** The circles of a graph: its strongly connected components of more than one node, or a node importing itself. */
export function circles (graph: ReadonlyMap<string, readonly string[]>): string[][] {
  return stronglyConnected(graph.keys(), (node) => (graph.get(node) ?? []).filter((to) => graph.has(to)))
    .filter((component) => component.length > 1 || (graph.get(component[0] as string) ?? []).includes(component[0] as string))
    .map((component) => component.sort())
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = new Map(modules(src).map((file) => [file, importsOf(file)]))
  const found = circles(graph)
  for (const circle of found) console.error(`import circle: ${circle.map((file) => relative(root, file)).join(' <-> ')}`)
  if (found.length > 0) process.exit(1)
  console.log(`no import circle among ${graph.size} modules of src/`)
}
