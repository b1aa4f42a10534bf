import { checkAct } from './act.ts'
import { MAX_ACTOR_ACTS } from './actor.ts'
import { agree } from './agree.ts'
import * as llamaCpp from './llama-cpp.ts'
import * as xgrammar from './xgrammar.ts'
import { checkArrival } from './arrival.ts'
import { Client } from './client.ts'
import { Gate, passWith } from './gate.ts'
import { followLinks, reading } from './links.ts'
import { connect, type Connected, type Exchanger } from './mcp.ts'
import { Results } from './results.ts'
import type { ActorName, ActorReport, CheckOptions, FormSummary, GateReport, LinkGraph, McpReport, Report, Response, Send } from './types.ts'

export const DEFAULT_MAX_REQUESTS = 200
export const DEFAULT_BODY_SIZE = 10 * 1024 * 1024
/** Seconds a whole run may take: every request bounded, a hostile address still cannot keep it. */
export const DEFAULT_TIME_LIMIT = 120

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Checks the address behind `send` against draft-ferguson-gpt-00: every check once, in order, one
 * request at a time. `target` only names the address in the report.
 */
export async function check (send: Send, target: string, options: CheckOptions = {}): Promise<Report> {
  const acts = options.acts ?? 0
  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS
  const timeLimit = options.timeLimit ?? DEFAULT_TIME_LIMIT
  const numbers = { acts, maxRequests, interval: options.interval ?? 0, maxWait: options.maxWait ?? 0, timeLimit, judgeTimeout: options.judgeTimeout ?? 1, depth: options.follow?.depth ?? 0 }
  for (const [name, value] of Object.entries(numbers)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`)
  }
  const by = options.actor === undefined ? undefined : await actorOf(options.actor, acts, options.model)
  const deadline = Date.now() + timeLimit * 1000
  // where requests go: the address, or in turn each address its links name
  const route = { send }
  const client = new Client((request) => route.send(request), {
    maxRequests,
    interval: options.interval ?? 0,
    maxWait: options.maxWait ?? 60,
    sleep: options.sleep ?? sleep,
    deadline,
    timeLimit,
    ...(options.headers === undefined ? {} : { actHeaders: lowerCase(options.headers) }),
    ...(options.progress === undefined ? {} : { progress: options.progress })
  })
  const results = new Results()
  // one exchange through the client, to `to`: the address, the bridge, or (links) another address
  const via = (to: Send): Exchanger => async (request) => {
    route.send = to
    try {
      return await client.exchange(request)
    } finally {
      route.send = send
    }
  }
  // the bridge first: a run that cannot find the address's tool is not begun (no act is sent)
  let bridge: Connected | undefined
  if (options.mcp !== undefined) {
    const found = await connect(via(options.mcp.send), options.mcp.url, options.mcp.path)
    if ('why' in found) {
      results.skip('MCP-tool', found.why)
      return { ...report(target, options, client, results), unfinished: found.why, mcp: { url: options.mcp.url, sent: { refused: 0, admitted: 0 }, disagreed: 0 } }
    }
    bridge = found
  }
  const arrived = await checkArrival(client, results, options.judgeTimeout)
  const { s } = arrived
  let unfinished: string[] = []
  let summary: FormSummary | undefined
  let actor: ActorReport | undefined
  let links: LinkGraph | undefined
  let mcp: McpReport | undefined
  let gated: GateReport | undefined
  const gate = new Gate()
  try {
    // nothing answered: no other check can say anything
    if (arrived.reached) {
      actor = await checkAct(client, results, s, {
        acts,
        bodySize: options.bodySize ?? DEFAULT_BODY_SIZE,
        seed: options.seed ?? 1,
        ...(by === undefined ? {} : { actor: { ...by, deadline } })
      }, gate)
    }
    if (options.follow !== undefined && arrived.arrival !== undefined && namesAddresses(arrived.arrival)) {
      links = await followLinks(client, route, arrived.arrival, options.follow, results)
    }
    if (bridge !== undefined && options.mcp !== undefined) {
      mcp = await agree(via(send), via(options.mcp.send), results, s, bridge, { acts, seed: options.seed ?? 1, url: options.mcp.url })
    }
    unfinished = [arrived.unfinished, s.judge?.why, ...results.limits, client.timedOut ? client.stopped : undefined]
      .filter((why): why is string => why !== undefined)
    gated = gate.report(Object.keys(lowerCase(options.headers ?? {})))
    // a gate no POST got past: the acts were not checked, and the run does not pass for it
    if (gated !== undefined && gated.through === 0) unfinished.push(`the acts were not checked: the host's gate answered every POST ${gated.status}; pass ${passWith(gated)}`)
    summary = s.judge?.why === undefined ? s.judge?.summary() : undefined
  } finally {
    s.judge?.release()
  }
  return {
    ...report(target, options, client, results),
    ...(unfinished.length === 0 ? {} : { unfinished: [...new Set(unfinished)].join('; ') }),
    ...(gated === undefined ? {} : { gate: gated }),
    ...(links === undefined ? {} : { links }),
    ...(summary === undefined ? {} : { form: summary }),
    ...(actor === undefined ? {} : { actor }),
    ...(mcp === undefined ? {} : { mcp })
  }
}

/** The decoders that can write the acts, each behind its door: whether it is installed, and what to say when not. */
export const ACTORS: Readonly<Record<ActorName, { readonly installed: () => string | undefined, readonly MISSING: string }>> = { xgrammar, 'llama-cpp': llamaCpp }

/** The decoder that writes the acts: its version and lint's profile of it, or why it cannot. */
async function actorOf (name: string, acts: number, model: string | undefined): Promise<{ decoder: ActorName, version: string, profile: string, model?: string }> {
  if (!Object.hasOwn(ACTORS, name)) throw new TypeError(`unknown actor "${name}" (one of: ${Object.keys(ACTORS).join(', ')})`)
  if (acts < 1 || acts > MAX_ACTOR_ACTS) throw new RangeError(`the ${name} actor writes 1 to ${MAX_ACTOR_ACTS} acts: give acts`)
  if (model !== undefined && name !== 'llama-cpp') throw new TypeError(`a model is for the llama-cpp actor, not the ${name} actor`)
  const door = ACTORS[name as ActorName]
  const version = door.installed()
  if (version === undefined) throw new Error(door.MISSING)
  // the linter, loaded only for the actor: lint's word on s otherwise comes from the judge's thread
  const { decoderProfiles } = await import('../lint/index.ts')
  return { decoder: name as ActorName, version, profile: decoderProfiles().find((p) => p.decoder === name)?.version as string, ...(model === undefined ? {} : { model }) }
}

/** Whether an arrival has an `l` member (cheaply ruled out when the text never writes one). */
function namesAddresses (arrival: Response): boolean {
  if (!Buffer.from(arrival.body.buffer, arrival.body.byteOffset, arrival.body.length).includes('"l"')) return false
  const read = reading({ request: { method: 'GET', headers: {} }, response: arrival })
  return read.kind === 'address' && (read.links !== undefined || read.malformed !== undefined)
}

const lowerCase = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

function report (target: string, options: CheckOptions, client: Client, results: Results): Report {
  const strict = options.strict === true
  const count = (outcome: string): number => results.list.filter((r) => r.outcome === outcome).length
  const failed = results.list.filter((r) => r.outcome === 'fail' && (r.level === 'MUST' || (strict && r.level === 'SHOULD')))
  return {
    target,
    draft: 'draft-ferguson-gpt-00',
    ok: failed.length === 0,
    strict,
    counts: { pass: count('pass'), fail: count('fail'), skip: count('skip'), gate: count('gate') },
    requests: client.requests,
    rateLimited: client.rateLimited,
    results: results.list
  }
}
