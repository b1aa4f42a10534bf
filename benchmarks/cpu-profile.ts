// A V8 CPU profile (.cpuprofile, as `node --cpu-prof` or the inspector's Profiler.stop writes it)
// read as µs per response: self time by function and by module, and the inclusive time of the
// plugin's functions (dist/) and Fastify's stages. Used by `bench:peers -- --profile DIR`.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { ROOT } from './processes.ts'

interface CallFrame { functionName: string, url: string, lineNumber: number }
interface ProfileNode { id: number, callFrame: CallFrame, children?: number[] }
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

const where = (url: string): string => {
  if (url === '') return ''
  const path = url.startsWith('file://') ? relative(ROOT, new URL(url).pathname) : url
  return path.replace(/^node_modules\//, '')
}
const key = (f: CallFrame): string =>
  `${f.functionName === '' ? '(anonymous)' : f.functionName} ${where(f.url)}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`

/** The module a frame belongs to: a file of the plugin, a package, a part of Node, or V8. */
function moduleOf (f: CallFrame): string {
  const path = where(f.url)
  if (path === '') {
    if (/^validate\d+$/.test(f.functionName)) return 'Ajv-generated validator'
    if (f.functionName.startsWith('(')) return f.functionName
    return 'native (syscalls, builtins)'
  }
  if (path.startsWith('dist/')) return `fastify-gpt ${path}`
  if (path.startsWith('node:')) return path.replace(/^node:(internal\/)?/, 'node:').split('/')[0] as string
  const [first, second] = path.split('/')
  return first?.startsWith('@') === true ? `${first}/${second}` : first as string
}

/** The plugin's own functions and the request pipeline's stages, for the inclusive list. */
const STAGE = /^\S+ dist\/|^validate\d+ $|fastify\/lib\/(handle-request|content-type-parser|validation|reply)\.js/

/** The summary's lines: busy time per response, then the top functions and modules. */
export function summarize (file: string, responses: number, top = 20): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const self = new Map<string, number>()
  const modules = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    const frame = (byId.get(id) as ProfileNode).callFrame
    if (frame.functionName === '(idle)') return
    total += delta
    self.set(key(frame), (self.get(key(frame)) ?? 0) + delta)
    modules.set(moduleOf(frame), (modules.get(moduleOf(frame)) ?? 0) + delta)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = key((byId.get(at) as ProfileNode).callFrame)
      if (seen.has(name)) continue
      seen.add(name)
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta)
    }
  })
  const per = (micros: number): string => `${(micros / Math.max(1, responses)).toFixed(2).padStart(7)} µs`
  const share = (micros: number): string => `${(100 * micros / total).toFixed(1).padStart(5)} %  ${per(micros)}`
  const sorted = (map: Map<string, number>): [string, number][] => [...map].sort((a, b) => b[1] - a[1])
  return [
    `sampled busy ${per(total)} per response over ${responses} responses (${relative(ROOT, file)})`,
    'self time by module:',
    ...sorted(modules).slice(0, 12).map(([name, micros]) => `  ${share(micros)}  ${name}`),
    `top ${top} functions by self time:`,
    ...sorted(self).slice(0, top).map(([name, micros]) => `  ${share(micros)}  ${name}`),
    'inclusive time of the plugin\'s functions and Fastify\'s stages:',
    ...sorted(inclusive).filter(([n]) => STAGE.test(n)).slice(0, top).map(([name, micros]) => `  ${share(micros)}  ${name}`)
  ]
}
