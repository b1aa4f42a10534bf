// `fastify-gpt check <url>`: checks any GPT address against draft-ferguson-gpt-00 over HTTP.
import { accessSync, constants, statSync } from 'node:fs'
import { DEFAULT_JUDGE_TIMEOUT } from '../check/judge.ts'
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, httpSender } from '../check/http.ts'
import { MAX_ACTOR_ACTS } from '../check/actor.ts'
import { MCP_ACTS } from '../check/agree.ts'
import { DEFAULT_LINK_DEPTH } from '../check/links.ts'
import { formatReport } from '../check/report.ts'
import { ACTORS, check, DEFAULT_BODY_SIZE, DEFAULT_MAX_REQUESTS, DEFAULT_TIME_LIMIT } from '../check/run.ts'
import type { ActorName, CheckOptions } from '../check/types.ts'
import { visible, visibleJson } from '../check/visible.ts'
import { cannot, COMMON_USAGE, EXIT, integer, parse, STD, usageError, type Io, type Options } from './args.ts'

export const USAGE = `Usage: fastify-gpt check <url> [options]

Checks the GPT address at <url> against draft-ferguson-gpt-00. By default it sends only bodies
that a conformant address must refuse; --acts sends values the form admits, each an act.

  --acts N             also send N acts (values s admits); they have effects (default 0)
  --actor xgrammar     a real constrained decoder writes the N acts (at most ${MAX_ACTOR_ACTS}); the report
                       says how many were acted on and why the others were refused (needs the
                       optional package @mlc-ai/web-xgrammar)
  --actor llama-cpp    the same with llama.cpp's own converter and grammar sampler, and a model of
                       random weights made for the run (needs the optional package @fugood/llama.node)
  --model PATH         with --actor llama-cpp: sample with this GGUF model instead
  --header 'NAME: V'   send this header with every act, never with a GET (repeatable)
  --max-requests N     send at most N requests, retries included (default ${DEFAULT_MAX_REQUESTS})
  --interval MS        wait MS milliseconds between requests (default 0)
  --max-wait S         wait out a 429 only if its Retry-After is at most S seconds (default 60)
  --body-size BYTES    size of the bodies to be refused for their size (default ${DEFAULT_BODY_SIZE})
  --timeout MS         give up on an exchange after MS milliseconds, body included (default ${DEFAULT_TIMEOUT})
  --max-bytes BYTES    read at most BYTES of an answer (default ${DEFAULT_MAX_BYTES})
  --time-limit S       end the whole run after S seconds (default ${DEFAULT_TIME_LIMIT})
  --judge-timeout MS   give the independent validator MS milliseconds a value (default ${DEFAULT_JUDGE_TIMEOUT})
  --seed N             seed of the value generator (default 1)
  --depth N            follow the addresses the arrival's l names, N hops, GETs only (default ${DEFAULT_LINK_DEPTH}; 0: none)
  --mcp URL            also check the address's tool on the MCP bridge at URL (or a path on <url>'s
                       origin, as /mcp): its inputSchema is s, and the same bodies sent as POST and
                       as tools/call are refused and acted on alike (with --acts, up to ${MCP_ACTS} values
                       s admits go both ways: two acts each). No tool for the address: exit 2
  --strict             a failed SHOULD also fails the run
${COMMON_USAGE}

Exit status: 0 when no MUST failed (--strict: no SHOULD either); 1 when one did; 2 when it could
not check: a usage error, an address it could not reach, or one of its own bounds reached (the
report says which checks that left undone).
`

const INTEGERS = ['acts', 'max-requests', 'interval', 'max-wait', 'body-size', 'timeout', 'max-bytes', 'time-limit', 'judge-timeout', 'seed', 'depth'] as const
const POSITIVE = new Set(['timeout', 'max-bytes', 'time-limit', 'judge-timeout'])

const OPTIONS: Options = {
  ...Object.fromEntries(INTEGERS.map((name) => [name, { type: 'string' as const }])),
  header: { type: 'string', multiple: true },
  actor: { type: 'string' },
  model: { type: 'string' },
  mcp: { type: 'string' },
  strict: { type: 'boolean' }
}

/** `name: value`, as curl takes it. */
function header (text: string): [string, string] | undefined {
  const at = text.indexOf(':')
  const name = text.slice(0, at).trim().toLowerCase()
  const value = text.slice(at + 1).trim()
  if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name) || !/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) return undefined
  return [name, value]
}

/** --mcp's URL, resolved against the address's (`/mcp` is on its origin); undefined without one; or a usage message. */
function bridgeUrl (text: unknown, base: URL): URL | undefined | string {
  if (text === undefined) return undefined
  let url: URL
  try {
    url = new URL(String(text), base)
  } catch {
    return `--mcp takes a URL, not "${String(text)}"`
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : `--mcp takes an http(s) URL, not "${String(text)}"`
}

/** Whether a file can be opened for reading. */
function readable (file: string): boolean {
  try {
    accessSync(file, constants.R_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** Runs the command with the arguments after `check`; resolves to the exit status. */
export async function main (argv: string[], io: Io = STD): Promise<number> {
  const parsed = parse('check', USAGE, argv, OPTIONS, io)
  if (typeof parsed === 'number') return parsed
  const { values, positionals } = parsed
  const numbers: Partial<Record<typeof INTEGERS[number], number>> = {}
  for (const name of INTEGERS) {
    const n = integer(values, name, POSITIVE.has(name) ? 1 : 0)
    if (typeof n === 'string') return usageError('check', USAGE, n, io)
    if (n !== undefined) numbers[name] = n
  }
  const headers: Record<string, string> = {}
  for (const text of (values['header'] ?? []) as string[]) {
    const field = header(text)
    if (field === undefined) return usageError('check', USAGE, `--header takes 'name: value', not "${text}"`, io)
    headers[field[0]] = field[1]
  }
  const [target, ...extra] = positionals
  if (target === undefined || extra.length > 0) return usageError('check', USAGE, 'give one URL', io)
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return usageError('check', USAGE, `not a URL: ${target}`, io)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return usageError('check', USAGE, `not an http(s) URL: ${target}`, io)
  const bridge = bridgeUrl(values['mcp'], url)
  if (typeof bridge === 'string') return usageError('check', USAGE, bridge, io)

  const actor = values['actor'] as ActorName | undefined
  const model = values['model'] as string | undefined
  if (actor !== undefined) {
    if (!Object.hasOwn(ACTORS, actor)) return usageError('check', USAGE, `--actor takes ${Object.keys(ACTORS).join(' or ')}, not "${String(actor)}"`, io)
    if (numbers.acts === undefined || numbers.acts < 1 || numbers.acts > MAX_ACTOR_ACTS) {
      return usageError('check', USAGE, `--actor ${actor} needs --acts N, from 1 to ${MAX_ACTOR_ACTS}`, io)
    }
  }
  if (model !== undefined && actor !== 'llama-cpp') return usageError('check', USAGE, '--model is for --actor llama-cpp', io)
  // before any request: a run that cannot act as asked is not begun
  if (actor !== undefined && ACTORS[actor].installed() === undefined) return cannot('check', ACTORS[actor].MISSING, io)
  if (model !== undefined && !readable(model)) return cannot('check', `cannot read the model ${model}`, io)

  const verbose = values['verbose'] === true || io.tty === true
  const options: CheckOptions = {
    strict: values['strict'] === true,
    ...(actor === undefined ? {} : { actor }),
    ...(model === undefined ? {} : { model }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(numbers.acts === undefined ? {} : { acts: numbers.acts }),
    ...(numbers['max-requests'] === undefined ? {} : { maxRequests: numbers['max-requests'] }),
    ...(numbers.interval === undefined ? {} : { interval: numbers.interval }),
    ...(numbers['max-wait'] === undefined ? {} : { maxWait: numbers['max-wait'] }),
    ...(numbers['body-size'] === undefined ? {} : { bodySize: numbers['body-size'] }),
    ...(numbers['time-limit'] === undefined ? {} : { timeLimit: numbers['time-limit'] }),
    ...(numbers['judge-timeout'] === undefined ? {} : { judgeTimeout: numbers['judge-timeout'] }),
    ...(numbers.seed === undefined ? {} : { seed: numbers.seed }),
    ...(verbose ? { progress: (message: string) => io.err(`fastify-gpt check: ${visible(message)}\n`) } : {})
  }
  const http = {
    ...(numbers.timeout === undefined ? {} : { timeout: numbers.timeout }),
    ...(numbers['max-bytes'] === undefined ? {} : { maxBytes: numbers['max-bytes'] })
  }
  const send = httpSender(url, http)
  const follow = { url, depth: numbers.depth ?? DEFAULT_LINK_DEPTH, sendTo: (target: URL) => httpSender(target, http) }
  const mcp = bridge === undefined ? {} : { mcp: { send: httpSender(bridge, http), path: url.pathname, url: bridge.href } }
  const report = await check(send, url.href, { ...options, follow, ...mcp })
  // nothing checked at all: no report to show, only what stood in the way
  if (report.unfinished !== undefined && report.counts.pass + report.counts.fail === 0) return cannot('check', report.unfinished, io)
  io.out(values['json'] === true ? `${visibleJson(JSON.stringify(report, null, 2))}\n` : formatReport(report))
  if (!report.ok) return EXIT.failed
  if (report.unfinished !== undefined) return cannot('check', `could not check everything: ${report.unfinished}`, io)
  return EXIT.ok
}
