// fastify-gpt side by side with bare Fastify + Ajv, @hono/zod-openapi and the MCP TypeScript SDK,
// and fastify-gpt's own MCP bridge (fastify-gpt/mcp: tools/call of the same forms), each stack in
// its own process as a production host runs (benchmarks/peer-host.ts).
//   npm run bench:peers    every stack started once, NODE_ENV=production, hosts on core 1 and
//                          autocannon on core 0 (taskset), 50 connections; per scenario a warm-up
//                          of 20,000 requests on each stack, then 5 runs of 20,000 on each in turn
//                          (the order rotated every run); host CPU per request from
//                          /proc/<pid>/stat, req/s and p99 from autocannon, RSS from
//                          /proc/<pid>/status; then, from real requests, what each stack does with
//                          a duplicate member, trailing bytes, an unknown member, a number for a
//                          string. Writes benchmarks/results/peers-latest.json
//   --stacks gpt,bare      only these (the way "harness B" measured fastify-gpt against bare
//                          Fastify: the ratios bare/gpt are printed whenever both are in);
//                          also bare-kept: bare Fastify keeping a tick object alive (src/address/tick.ts);
//                          gpt-mcp: the gpt host with fastify-gpt/mcp, every act a tools/call
//                          (`--stacks bare,gpt,gpt-mcp,mcp` measures the bridge against POST and
//                          the SDK: gpt/gpt-mcp and mcp/gpt-mcp are printed, with their targets)
//                          gpt-mcp26: the gpt-mcp host asked in MCP 2026-07-28's form (each request's
//                          revision in its _meta and fields), the other stacks of MCP in 2025-03-26's
//                          gpt-fotel, gpt-otel: the gpt host with @fastify/otel, and with fastify-gpt/otel
//                          too (gpt-fotel/gpt-otel is what fastify-gpt/otel costs beside @fastify/otel)
//   --smoke                no warm-up, 1 run of 100 requests, 10 connections: statuses and the
//                          behaviour table only (for CI)
// Options: --runs N (5) --requests N (20,000; a tenth at 64 KB and for mcp) --warmup N (= requests)
//          --connections N (50) --pairs N (1: fresh processes N times, medians over all runs)
//          --only get,post-70B,... --before PATH (a stack `before`: fastify-gpt from another
//          build's index.js, measured in the same runs; and with gpt-mcp, a stack `before-mcp`:
//          that build's bridge, mcp/index.js beside it) --out FILE --verbose
//          --top N (functions in a --profile summary: 25)
//          --cpu-prof DIR (each host writes V8's CPU profile in DIR/<stack>/ when it closes, as node --cpu-prof)
//          --profile DIR (V8's CPU profile of each host around each scenario's measured runs only,
//          after its warm-up: DIR/<stack>-<scenario>.cpuprofile, and a summary in µs per
//          response printed; the profiler's own cost is in the CPU figures of such a run)
import { Buffer } from 'node:buffer'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { LoadJob, LoadSummary } from './load.ts'
import { bodies, noteArrival } from './peer-forms.ts'
import { canPin, cpuSeconds, HOST_CORE, LOAD_CORE, machine, median, ROOT, rssBytes, startChild, TICKS, writeResults, type Child } from './processes.ts'
import { exitCodeOf, requireCounts } from './checks.ts'
import { summarize } from './cpu-profile.ts'

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    stacks: { type: 'string', default: 'gpt,bare,hono,mcp,gpt-mcp' },
    runs: { type: 'string' },
    requests: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    pairs: { type: 'string', default: '1' },
    only: { type: 'string' },
    before: { type: 'string' },
    'cpu-prof': { type: 'string' },
    profile: { type: 'string' },
    out: { type: 'string' },
    top: { type: 'string' },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const runs = Number(values.runs ?? (smoke ? 1 : 5))
const requests = Number(values.requests ?? (smoke ? 100 : 20_000))
const warmup = Number(values.warmup ?? requests)
const connections = Number(values.connections ?? (smoke ? 10 : 50))
const pairs = Number(values.pairs)
requireCounts({ runs, requests, warmup, connections, pairs })
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/peers-smoke.tmp.json' : 'benchmarks/results/peers-latest.json'))

type Stack = 'gpt' | 'gpt-result' | 'before' | 'bare' | 'bare-kept' | 'hono' | 'mcp' | 'mcp-v2' | 'gpt-mcp' | 'gpt-mcp26' | 'before-mcp' | 'gpt-otel' | 'gpt-fotel'
const KNOWN: readonly Stack[] = ['gpt', 'gpt-result', 'before', 'bare', 'bare-kept', 'hono', 'mcp', 'mcp-v2', 'gpt-mcp', 'gpt-mcp26', 'before-mcp', 'gpt-otel', 'gpt-fotel']
const named = values.stacks.split(',')
const befores = values.before === undefined ? [] : ['before', ...(named.includes('gpt-mcp') ? ['before-mcp'] : [])]
const stacks = [...named, ...befores] as Stack[]
for (const stack of stacks) if (!KNOWN.includes(stack)) throw new Error(`--stacks: no stack ${stack}; there are ${KNOWN.filter((k) => !k.startsWith('before')).join(', ')}`)

// ---- what each stack is asked, per scenario ----

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const JSON_HEADERS = { 'content-type': 'application/json' }
let rpcId = 0
/** A JSON-RPC request to the MCP host, as a client sends it. */
const rpc = (method: string, params: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params })
const call = (tool: string, args: string, meta?: object): string =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool}","arguments":${args}${meta === undefined ? '' : `,"_meta":${JSON.stringify(meta)}`}}}`
// 2026-07-28: no session; each request names its revision, capabilities and client in _meta, and its method and name in fields
const META_2026 = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'peers', version: '1' } }
const fields2026 = (method: string, name?: string): Record<string, string> =>
  ({ ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) })

interface Request { method: 'GET' | 'POST', path: string, body?: string, headers?: Record<string, string> }
interface Scenario {
  name: string
  what: string
  /** Requests per run, as a share of --requests. */
  share: number
  /** What each stack is sent, and the status it must answer. */
  ask: (stack: Stack) => Request & { status: number }
  /** The scenario whose figures this one's are compared with: a refusal with an acceptance. */
  against?: string
}

const gptLike = (stack: Stack): boolean => stack === 'gpt' || stack === 'gpt-result' || stack === 'before' || stack === 'gpt-otel' || stack === 'gpt-fotel'
/** The stacks that speak MCP: the SDK's servers (v1, v2), and fastify-gpt's bridge. */
const mcpLike = (stack: Stack): boolean => stack === 'mcp' || stack === 'mcp-v2' || stack === 'gpt-mcp' || stack === 'gpt-mcp26' || stack === 'before-mcp'
function post (tool: 'note' | 'todo', body: string, accepted = true) {
  return (stack: Stack): Request & { status: number } => {
    if (stack === 'gpt-mcp26') return { method: 'POST', path: '/mcp', body: call(tool, body, META_2026), headers: fields2026('tools/call', tool), status: 200 }
    if (mcpLike(stack)) return { method: 'POST', path: '/mcp', body: call(tool, body), headers: MCP_HEADERS, status: 200 }
    return { method: 'POST', path: `/${tool}`, body, headers: JSON_HEADERS, status: accepted ? 200 : gptLike(stack) ? 204 : 400 }
  }
}

const size = (text: string): string => `${Buffer.byteLength(text).toLocaleString('en')} B`
const scenarios: readonly Scenario[] = [
  {
    name: 'get',
    what: 'GET: the arrival (gpt), the same bytes precomputed (bare), the OpenAPI document (hono), tools/list (mcp, gpt-mcp)',
    share: 1,
    ask: (stack) => stack === 'gpt-mcp26'
      ? { method: 'POST', path: '/mcp', body: rpc('tools/list', { _meta: META_2026 }), headers: fields2026('tools/list'), status: 200 }
      : mcpLike(stack)
        ? { method: 'POST', path: '/mcp', body: rpc('tools/list', {}), headers: MCP_HEADERS, status: 200 }
        : { method: 'GET', path: stack === 'hono' ? '/doc' : '/note', status: 200 }
  },
  { name: 'post-70B', what: `an accepted note, ${size(bodies.note)}`, share: 1, ask: post('note', bodies.note) },
  { name: 'post-1KB', what: `an accepted to-do list of ${JSON.parse(bodies.todo1k).items.length} nested objects, ${size(bodies.todo1k)}`, share: 1, ask: post('todo', bodies.todo1k) },
  { name: 'post-4KB', what: `an accepted to-do list, ${size(bodies.todo4k)}`, share: 1, ask: post('todo', bodies.todo4k) },
  { name: 'post-64KB', what: `an accepted to-do list, ${size(bodies.todo64k)}`, share: 0.1, ask: post('todo', bodies.todo64k) },
  {
    name: 'refused',
    what: `a note without its note, ${size(bodies.refused)} (gpt 204, bare and hono 400, mcp and gpt-mcp a tool error in a 200)`,
    share: 1,
    ask: post('note', bodies.refused, false),
    against: 'post-70B'
  }
]
const chosen = values.only === undefined ? scenarios : scenarios.filter((s) => values.only?.split(',').includes(s.name))
if (chosen.length === 0) throw new Error(`--only names no scenario; there are: ${scenarios.map((s) => s.name).join(', ')}`)

// ---- hosts and runs ----

interface Host { stack: Stack, child: Child, url: string, pid: number }
interface Run { rps: number, p99: number, cpuPerRequest: number }

const problems: string[] = []

async function startHost (stack: Stack): Promise<Host> {
  const args = stack === 'before'
    ? ['--stack', 'gpt', '--module', values.before as string]
    : stack === 'before-mcp' ? ['--stack', 'gpt-mcp', '--module', values.before as string] : ['--stack', stack === 'gpt-mcp26' ? 'gpt-mcp' : stack]
  // --cpu-prof DIR: V8's profile of each host, written when it closes (start-up and warm-up included)
  // (a directory per stack: the loader's thread writes a profile of its own beside the host's)
  const flags = values['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'], stack)]
  const child = startChild('peer-host.ts', args, HOST_CORE, flags)
  const { port, pid } = await child.ready as { port: number, pid: number }
  return { stack, child, url: `http://127.0.0.1:${port}`, pid }
}

/** The SDK's MCP stacks cost many times the others a request: a tenth of the requests keeps their runs as long (not gpt-mcp's). */
const amountOf = (scenario: Scenario, stack: Stack, base: number): number =>
  Math.max(connections, Math.round(base * scenario.share * ((stack === 'mcp' || stack === 'mcp-v2') && !smoke ? 0.1 : 1)))

async function measure (loader: Child, host: Host, scenario: Scenario, amount: number): Promise<Run> {
  const { status, ...request } = scenario.ask(host.stack)
  const job: LoadJob = { url: `${host.url}${request.path}`, method: request.method, connections, pipelining: 1, amount, ...(request.body === undefined ? {} : { body: request.body }), ...(request.headers === undefined ? {} : { headers: request.headers }) }
  const before = cpuSeconds(host.pid)
  const summary = await loader.ask<LoadSummary>({ type: 'run', job })
  const cpu = cpuSeconds(host.pid) - before
  const wrong = summary.responses - (summary.statuses[String(status)] ?? 0)
  if (summary.responses === 0 || wrong > 0 || summary.errors > 0 || summary.timeouts > 0) {
    problems.push(`${scenario.name} on ${host.stack}: ${wrong} of ${summary.responses} not ${status} (${JSON.stringify(summary.statuses)}), ${summary.errors} errors, ${summary.timeouts} timeouts`)
  }
  return { rps: summary.rps, p99: summary.p99, cpuPerRequest: 1e6 * cpu / Math.max(1, summary.responses) }
}

type Measured = Record<string, Partial<Record<Stack, Run[]>>>
const rss: Partial<Record<Stack, number[]>> = {}

/** One set of fresh hosts: every scenario, a warm-up on each stack, then the alternating runs. */
async function oneSet (loader: Child, measured: Measured): Promise<void> {
  const hosts: Host[] = []
  try {
    hosts.push(...await Promise.all(stacks.map(startHost)))
    for (const scenario of chosen) {
      const runsOf = (measured[scenario.name] ??= {})
      if (!smoke) for (const host of hosts) await measure(loader, host, scenario, amountOf(scenario, host.stack, warmup))
      const profiling = values.profile === undefined ? undefined : resolve(values.profile)
      if (profiling !== undefined) {
        mkdirSync(profiling, { recursive: true })
        for (const host of hosts) await host.child.ask({ type: 'profile-start' })
      }
      for (let run = 0; run < runs; run++) {
        // every stack goes first in turn: slow drifts of a shared machine hit all alike
        const order = hosts.map((_, i) => hosts[(i + run) % hosts.length] as Host)
        for (const host of order) {
          const result = await measure(loader, host, scenario, amountOf(scenario, host.stack, requests))
          if (values.verbose) console.log(`  ${scenario.name} ${host.stack}: ${result.cpuPerRequest.toFixed(1)} µs/req, ${Math.round(result.rps)} req/s`)
          ;(runsOf[host.stack] ??= []).push(result)
        }
      }
      if (profiling !== undefined) {
        for (const host of hosts) {
          const file = resolve(profiling, `${host.stack}-${scenario.name}.cpuprofile`)
          await host.child.ask({ type: 'profile-stop', file })
          const responses = runs * amountOf(scenario, host.stack, requests)
          console.log(`\n${host.stack} ${scenario.name}:\n${summarize(file, responses, Number(values.top ?? 25)).join('\n')}`)
        }
      }
      if (!smoke) console.log(`${scenario.name} done`)
    }
    for (const host of hosts) (rss[host.stack] ??= []).push(rssBytes(host.pid))
    behaviours.push(...await behaviour(hosts))
  } finally {
    await Promise.all(hosts.map((host) => host.child.stop()))
  }
}

// ---- what each stack does with bodies a strict reading refuses ----

interface Behaviour { stack: Stack, case: string, status: number, answer: string }
const CASES: readonly { name: string, body: string }[] = [
  { name: 'duplicate member', body: '{"note":"a","note":"b"}' },
  { name: 'trailing bytes', body: '{"note":"a"} {"note":"b"}' },
  { name: 'unknown member', body: '{"note":"a","admin":true}' },
  { name: 'number for a string', body: '{"note":123}' }
]

/** The answer to each case from every stack, once (the first set of hosts). */
async function behaviour (hosts: readonly Host[]): Promise<Behaviour[]> {
  if (behaviours.length > 0) return []
  const found: Behaviour[] = []
  for (const host of hosts) {
    // the GET rows compare the same work only if both Fastify stacks send the very same bytes
    if (host.stack === 'bare' || host.stack === 'bare-kept' || gptLike(host.stack) || host.stack === 'gpt-mcp' || host.stack === 'before-mcp') {
      const arrival = Buffer.from(await (await fetch(`${host.url}/note`)).arrayBuffer())
      if (!arrival.equals(noteArrival)) problems.push(`${host.stack}: GET /note does not send the note board's arrival`)
    }
    // an MCP stack answers 200 to a refused call too: what the runs were answered is read here
    if (mcpLike(host.stack)) for (const scenario of chosen) await checkMcpAnswer(host, scenario)
    for (const { name, body } of CASES) {
      const { status: _status, ...request } = post('note', body)(host.stack)
      const response = await fetch(`${host.url}${request.path}`, { method: 'POST', body: request.body as string, headers: request.headers as Record<string, string> })
      found.push({ stack: host.stack, case: name, status: response.status, answer: answerOf(host.stack, await response.text()) })
    }
  }
  return found
}

interface RpcAnswer { result?: { isError?: boolean, content?: { text: string }[], tools?: { name: string }[] }, error?: { message: string } | string }

/**
 * The JSON-RPC answer in an MCP stack's response: one server-sent event (the SDK's: `event:
 * message`, `data: {jsonrpc...}`) or the JSON itself (gpt-mcp's); else what the response was.
 */
function rpcAnswerOf (text: string): RpcAnswer | string {
  if (text.startsWith('{')) {
    try {
      return JSON.parse(text) as RpcAnswer
    } catch {
      return `not JSON: ${text.slice(0, 80)}`
    }
  }
  const data = /^data: (.*)$/m.exec(text)?.[1]
  if (data === undefined) return text.startsWith('<') ? `an HTML page: ${htmlText(text)}` : `not an event: ${text.slice(0, 80)}`
  return JSON.parse(data) as RpcAnswer
}

/** One request of `scenario` to an MCP stack, and a problem unless its answer is what the runs counted on. */
async function checkMcpAnswer (host: Host, scenario: Scenario): Promise<void> {
  const { status, ...request } = scenario.ask(host.stack)
  const response = await fetch(`${host.url}${request.path}`, { method: 'POST', body: request.body as string, headers: request.headers as Record<string, string> })
  const message = rpcAnswerOf(await response.text())
  const wrong = (why: string): void => { problems.push(`${scenario.name} on ${host.stack}: ${why}`) }
  if (response.status !== status) return wrong(`answered ${response.status}`)
  if (typeof message === 'string') return wrong(message)
  if (message.error !== undefined) return wrong(`JSON-RPC error ${typeof message.error === 'string' ? message.error : message.error.message}`)
  if (scenario.name === 'get') {
    const names = (message.result?.tools ?? []).map((tool) => tool.name).sort().join(',')
    if (names !== 'note,todo') wrong(`tools/list names ${names}`)
    return
  }
  const refused = scenario.name === 'refused'
  if ((message.result?.isError === true) !== refused) wrong(`the tool ${refused ? 'accepted' : 'refused'} it: ${message.result?.content?.[0]?.text.slice(0, 120) ?? ''}`)
  else if (!refused) {
    const receipt = JSON.parse(message.result?.content?.[0]?.text ?? 'null') as { pinned?: boolean, saved?: boolean } | null
    if (receipt?.pinned !== true && receipt?.saved !== true) wrong(`not the act's receipt: ${JSON.stringify(receipt)}`)
  }
}

/** What the act received, read from its answer (the receipt echoes the note as received), or why not. */
function answerOf (stack: Stack, text: string): string {
  if (mcpLike(stack)) {
    const message = rpcAnswerOf(text)
    if (typeof message === 'string') return message
    // a Fastify error ({ statusCode, code, error: 'Bad Request', message }): the body refused before MCP read it
    if (typeof message.error === 'string') return receivedOf(text)
    if (message.error !== undefined) return `JSON-RPC error: ${message.error.message.slice(0, 80)}`
    const first = message.result?.content?.[0]?.text ?? ''
    if (message.result?.isError === true) return `tool error: ${first.replace(/\s+/g, ' ').slice(0, 160)}`
    return receivedOf(first)
  }
  if (text === '') return '(empty)'
  return receivedOf(text)
}

/** What an HTML error page says (Express's: the message in a <pre>). */
const htmlText = (html: string): string => (/<pre>([^<]*)<\/pre>/.exec(html)?.[1] ?? html).split('<br>')[0]?.slice(0, 80) ?? ''

function receivedOf (text: string): string {
  try {
    const value = JSON.parse(text) as { received?: unknown, code?: string, message?: string, error?: { name?: string, message?: string } }
    if (value.received !== undefined) return `act ran with ${JSON.stringify(value.received)}`
    // Fastify's error ({ code, message }), zod's through Hono ({ success: false, error: ZodError })
    if (value.code !== undefined) return `refused: ${value.code}: ${value.message ?? ''}`
    if (value.error?.name === 'ZodError') {
      const [issue] = JSON.parse(value.error.message ?? '[]') as { message: string }[]
      return `refused: ZodError: ${issue?.message ?? ''}`
    }
    return `refused: ${text.replace(/\s+/g, ' ').slice(0, 80)}`
  } catch {
    return `refused: ${text.slice(0, 80)}`
  }
}

const behaviours: Behaviour[] = []

// ---- report ----

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places

interface Figures { cpuPerRequest: number, rps: number, p99: number, cpuRuns: number[] }
function figures (measured: readonly Run[] | undefined): Figures | undefined {
  if (measured === undefined) return undefined
  return {
    cpuPerRequest: round(median(measured.map((r) => r.cpuPerRequest))),
    rps: Math.round(median(measured.map((r) => r.rps))),
    p99: median(measured.map((r) => r.p99)),
    cpuRuns: measured.map((r) => round(r.cpuPerRequest))
  }
}

async function main (): Promise<number> {
  const began = Date.now()
  // Every stack as it runs in production (Express and others read it; Fastify and fastify-gpt do not).
  process.env['NODE_ENV'] = 'production'
  console.log(`peers: ${stacks.join(', ')}, each in its own process, NODE_ENV=production; ${pairs === 1 ? 'one set of hosts' : `${pairs} sets of hosts in turn`}; ` +
    `per scenario a warm-up of ${warmup} then ${runs} runs of ${requests} requests per stack in turn (a tenth at 64 KB and for mcp, the SDK's), ${connections} connections; ` +
    `host CPU from /proc/<pid>/stat (${TICKS} ticks/s); ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'no taskset: not pinned'}`)
  const loader = startChild('load.ts', [], LOAD_CORE)
  const measured: Measured = {}
  try {
    await loader.ready
    for (let set = 0; set < pairs; set++) await oneSet(loader, measured)
  } finally {
    await loader.stop()
  }

  // [a, b]: a's µs/req ÷ b's. Against the bare baseline, every stack; then gpt-mcp's two targets:
  // its tools/call against the same act's POST (gpt/gpt-mcp ≥ 0.8) and against the SDK (mcp/gpt-mcp ≥ 5)
  const PAIRS: readonly (readonly [Stack, Stack])[] = [
    ['bare', 'gpt'], ['gpt', 'gpt-result'], ['bare', 'before'], ['bare-kept', 'gpt'], ['bare-kept', 'before'],
    ['bare', 'gpt-mcp'], ['bare', 'mcp'], ['gpt', 'gpt-mcp'], ['mcp', 'gpt-mcp'], ['gpt', 'gpt-mcp26'], ['mcp', 'gpt-mcp26'],
    ['bare', 'mcp-v2'], ['mcp', 'mcp-v2'], ['mcp-v2', 'gpt-mcp'],
    ['gpt', 'before-mcp'], ['mcp', 'before-mcp'], ['gpt-mcp', 'before-mcp'],
    // the act with nobody subscribed against the build before the channels (--before), and what
    // fastify-gpt/otel adds beside @fastify/otel alone (docs/observability.md)
    ['before', 'gpt'], ['bare', 'gpt-fotel'], ['bare', 'gpt-otel'], ['gpt-fotel', 'gpt-otel']
  ]
  const rows = chosen.map((scenario) => {
    const figuresOf = Object.fromEntries(stacks.map((stack) => [stack, figures(measured[scenario.name]?.[stack])])) as Partial<Record<Stack, Figures>>
    // the figures the targets are judged on: a bare host's µs/req over fastify-gpt's, in the same runs
    const ratios: Record<string, number> = {}
    for (const [base, subject] of PAIRS) {
      const b = figuresOf[base]
      const g = figuresOf[subject]
      if (b !== undefined && g !== undefined) ratios[`${base}/${subject}`] = round(b.cpuPerRequest / g.cpuPerRequest, 3)
    }
    return { scenario: scenario.name, what: scenario.what, stacks: figuresOf, ratios }
  })
  const pairNames = PAIRS.filter(([b, g]) => stacks.includes(b) && stacks.includes(g)).map(([b, g]) => `${b}/${g}`)
  const head = ['scenario', ...stacks.map((s) => `${s} µs/req`), ...pairNames]
  const lines = rows.map((row) => [
    row.scenario,
    ...stacks.map((s) => row.stacks[s]?.cpuPerRequest.toFixed(1) ?? '-'),
    ...pairNames.map((name) => String(row.ratios[name]))
  ])
  const print = (cells: readonly string[]): string => cells.map((c, i) => i === 0 ? c.padEnd(10) : c.padStart(Math.max(15, (head[i]?.length ?? 0) + 1))).join(' ')
  console.log(`\nhost CPU µs per request (medians; a ratio a/b is a's µs/req ÷ b's: ≥ 1 where b costs no more)\n${print(head)}`)
  for (const line of lines) console.log(print(line))
  for (const bridge of ['gpt-mcp', 'gpt-mcp26', 'before-mcp'].filter((s) => stacks.includes(s as Stack))) {
    if (!stacks.includes('gpt') && !stacks.includes('mcp')) continue
    // the acts only: GET is the arrival on gpt and tools/list on gpt-mcp, not the same work
    console.log(`\n${bridge} tools/call against POST (gpt/${bridge}, target ≥ 0.8) and against the SDK (mcp/${bridge}, target ≥ 5):`)
    for (const row of rows.filter((r) => r.scenario !== 'get')) {
      const verdict = (name: string, target: number): string => {
        const ratio = row.ratios[name]
        return ratio === undefined ? '' : `${name} ${ratio} ${ratio >= target ? 'met' : 'MISSED'}`
      }
      console.log(`  ${row.scenario.padEnd(10)} ${[verdict(`gpt/${bridge}`, 0.8), verdict(`mcp/${bridge}`, 5)].filter((v) => v !== '').join(', ')}`)
    }
  }
  for (const scenario of chosen) {
    const accepted = rows.find((row) => row.scenario === scenario.against)
    const refused = rows.find((row) => row.scenario === scenario.name)
    if (accepted === undefined || refused === undefined) continue
    console.log(`${scenario.name} ÷ ${scenario.against}: ${stacks.map((s) => `${s} ${round((refused.stacks[s]?.cpuPerRequest ?? NaN) / (accepted.stacks[s]?.cpuPerRequest ?? NaN), 2)}`).join(', ')}`)
  }
  console.log(`\nreq/s and p99 (ms)\n${print(['scenario', ...stacks])}`)
  for (const row of rows) {
    console.log(print([row.scenario, ...stacks.map((s) => {
      const f = row.stacks[s]
      return f === undefined ? '-' : `${f.rps} / ${f.p99}`
    })]))
  }
  const rssMb = Object.fromEntries(stacks.map((s) => [s, round(median(rss[s] ?? [Number.NaN]) / 2 ** 20)]))
  console.log(`\nRSS after the runs (MB): ${stacks.map((s) => `${s} ${rssMb[s]}`).join(', ')}`)
  console.log('\nwhat each stack does with (a note board act):')
  for (const { name } of CASES) {
    console.log(`  ${name}`)
    for (const b of behaviours.filter((x) => x.case === name)) console.log(`    ${b.stack.padEnd(9)} ${b.status} ${b.answer}`)
  }
  if (smoke) console.log('(smoke: statuses and behaviours only, the figures mean nothing)')
  // draft §5.3: whatever is wrong with a body, the answer is the bare 204
  for (const b of behaviours) if (gptLike(b.stack) && b.status !== 204) problems.push(`${b.stack} answered ${b.case} with ${b.status}, not the bare 204`)
  const report = {
    ...machine(),
    mode: 'peers',
    nodeEnv: 'production',
    smoke,
    stacks,
    runs,
    pairs,
    requestsPerRun: requests,
    warmup,
    connections,
    clockTicksPerSecond: TICKS,
    totalSeconds: Math.round((Date.now() - began) / 1000),
    rows,
    rssMb,
    behaviours,
    problems
  }
  writeResults(out, report)
  return exitCodeOf(problems)
}

process.exitCode = await main()
