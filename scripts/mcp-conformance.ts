// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, the versions pinned in
// test/packages/package.json) against the bridge: the fixture host's tools
// (test/fixtures/mcp-conformance-host.ts) and the example host (example/host.js, built package).
// Which scenarios are in scope, and which are not and why, is docs/mcp.md's "Conformance" section,
// read here: an in-scope scenario that fails, a failing check not listed there, a listed check
// that now passes, or a scenario the section does not name fails the run.
//   npm run check:mcp-conformance
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const ROOT = join(import.meta.dirname, '..')
/** The suite needs Node 22 (fs.globSync); pinned, fetched from the npm registry once. */
const NODE = '22.23.3'
/** The stable release and the alpha with the 2026-07-28 scenarios (test/packages/package.json). */
const SUITES = ['@modelcontextprotocol/conformance', '@modelcontextprotocol/conformance-next']

interface Check { readonly id: string, readonly status: string, readonly errorMessage?: string }
interface Scope { readonly fixture: ReadonlySet<string>, readonly example: ReadonlySet<string>, readonly out: ReadonlyMap<string, string> }

/** The tables of docs/mcp.md's Conformance section: `| \`scenario\` | fixture, example |` and `| \`scenario[:check]\` | why not |`. */
function scopeOf (markdown: string): Scope {
  const section = markdown.split(/^## Conformance$/m)[1]?.split(/^## /m)[0]
  if (section === undefined) fail('docs/mcp.md has no "## Conformance" section')
  const fixture = new Set<string>()
  const example = new Set<string>()
  const out = new Map<string, string>()
  let table = ''
  for (const line of section.split('\n')) {
    const header = /^\| (scenario|not in scope) \|/.exec(line)
    if (header !== null) table = header[1] as string
    const row = /^\| `([^`]+)` \| (.+) \|$/.exec(line)
    if (row === null) continue
    const [, name, cell] = row as unknown as [string, string, string]
    if (table === 'not in scope') out.set(name, cell)
    else {
      if (cell.includes('fixture')) fixture.add(name)
      if (cell.includes('example')) example.add(name)
    }
  }
  return { fixture, example, out }
}

function fail (message: string): never {
  console.error(`check:mcp-conformance: ${message}`)
  process.exit(2)
}

/** A Node 22 binary: fetched with npm into node_modules/.cache the first time. */
function node22 (): string {
  const prefix = join(ROOT, 'node_modules/.cache/mcp-conformance', `node-${NODE}`)
  const binary = join(prefix, 'node_modules/.bin/node')
  if (!existsSync(binary)) execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--silent', `node@${NODE}`], { stdio: 'inherit' })
  return binary
}

/** A process that prints a URL on a line of its output; resolved with it and the process. */
function serve (command: string, args: string[], env: NodeJS.ProcessEnv, urlOf: (line: string) => string | undefined): Promise<{ url: string, child: ChildProcess }> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => { child.kill(); reject(new Error(`${args.join(' ')} did not listen within 30 s`)) }, 30_000)
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const url = urlOf(line)
      if (url === undefined) return
      clearTimeout(late)
      resolve({ url, child })
    })
  })
}

/** Every server scenario the suite has, then the checks of each, run against `url`. */
function run (node: string, suite: string, url: string): { scenarios: string[], results: Map<string, Check[]> } {
  const cli = join(ROOT, 'node_modules', suite, 'dist/index.js')
  const listed = execFileSync(node, [cli, 'list', '--server'], { encoding: 'utf8' })
  const scenarios = [...listed.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] as string)
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
  try {
    // Its exit status counts every scenario; ours, only those in scope: judged from its files.
    try {
      execFileSync(node, [cli, 'server', '--url', url, '--suite', 'all', '-o', dir], { stdio: 'ignore', timeout: 60_000 })
    } catch (error) {
      if ((error as { status?: number | null }).status === null) throw error
    }
    const results = new Map<string, Check[]>()
    for (const name of readdirSync(dir)) {
      const scenario = name.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '')
      results.set(scenario, JSON.parse(readFileSync(join(dir, name, 'checks.json'), 'utf8')) as Check[])
    }
    return { scenarios, results }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** What is wrong of one run, judged against the scope: one line a problem. */
function judge (scope: Scope, host: string, inScope: ReadonlySet<string>, run: { scenarios: string[], results: Map<string, Check[]> }): { problems: string[], passed: string[] } {
  const problems: string[] = []
  const passed: string[] = []
  for (const scenario of run.scenarios) {
    if (!scope.fixture.has(scenario) && !scope.example.has(scenario) && !scope.out.has(scenario)) problems.push(`${scenario}: a scenario docs/mcp.md neither runs nor lists as not in scope`)
    if (!inScope.has(scenario)) continue
    const checks = run.results.get(scenario) ?? []
    const failing = checks.filter((check) => check.status === 'FAILURE' && !scope.out.has(`${scenario}:${check.id}`))
    const stale = checks.filter((check) => check.status === 'SUCCESS' && scope.out.has(`${scenario}:${check.id}`))
    const vacuous = !checks.some((check) => check.status === 'SUCCESS')
    for (const check of failing) problems.push(`${host} ${scenario}: ${check.id} failed: ${check.errorMessage ?? ''}`)
    for (const check of stale) problems.push(`${host} ${scenario}: ${check.id} passes: take it off docs/mcp.md's list`)
    if (vacuous) problems.push(`${host} ${scenario}: no check passed (${checks.length} run)`)
    if (failing.length === 0 && stale.length === 0 && !vacuous) passed.push(scenario)
    for (const check of checks) if (check.status === 'WARNING') console.log(`  warning: ${host} ${scenario}: ${check.id}: ${check.errorMessage ?? ''}`)
  }
  return { problems, passed }
}

const started = performance.now()
const scope = scopeOf(readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8'))
for (const suite of SUITES) if (!existsSync(join(ROOT, 'node_modules', suite))) fail(`${suite} is not installed: run \`npm run setup:test\``)
if (!existsSync(join(ROOT, 'dist/index.js'))) fail('the example host needs the built package: run `npm run build`')
const node = node22()
const fixture = await serve(process.execPath, ['--import', './test/register.js', 'test/fixtures/mcp-conformance-host.ts'], {}, (line) => line.startsWith('http') ? line : undefined)
// The example as `npm start` serves it, on a free port, without the addresses' rate limits.
const example = await serve(process.execPath, ['example/host.js'], { PORT: '0', RATE_MAX: '0' }, (line) => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1]?.concat('/mcp'))
const problems: string[] = []
try {
  for (const suite of SUITES) {
    const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules', suite, 'package.json'), 'utf8')) as { version: string }).version
    for (const [host, url, inScope] of [['fixture', fixture.url, scope.fixture], ['example', example.url, scope.example]] as const) {
      const judged = judge(scope, host, inScope, run(node, suite, url))
      problems.push(...judged.problems)
      console.log(`conformance ${version}, ${host}: ${judged.passed.length} scenarios pass: ${judged.passed.join(' ')}`)
    }
  }
} finally {
  fixture.child.kill()
  example.child.kill()
}
for (const problem of [...new Set(problems)]) console.error(`  ${problem}`)
console.log(`check:mcp-conformance: ${problems.length === 0 ? 'ok' : `${new Set(problems).size} problems`} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
process.exitCode = problems.length === 0 ? 0 : 1
