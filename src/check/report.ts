import { passWith } from './gate.ts'
import type { ActorReport, CheckResult, Exchange, GateReport, Level, LinkGraph, McpReport, Refusal, Report } from './types.ts'
import { visible } from './visible.ts'

// The report for people: failures first (MUST, then SHOULD, then MAY), each with what was sent and
// what came back; then every check, by draft section.

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY']
const SECTIONS: Readonly<Record<string, string>> = {
  3.1: 'Arrival: request',
  3.2: 'Arrival: response',
  3.3: 'Arrival: representation for human readers',
  4: 'The form',
  5.1: 'Act: request',
  5.2: 'Act: verification',
  5.3: 'Act: response',
  6: 'Actor identity',
  B: 'Composition: the addresses l names (Appendix B, as fastify-gpt answers it)',
  MCP: 'the address as an MCP tool: tools/call against POST (--mcp)'
}

// Draft sections in order, then the appendix.
const place = (section: string): number => Number.isNaN(Number(section)) ? Number.MAX_VALUE : Number(section)

const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`

const headers = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields).map(([name, value]) => `${name}: ${value}`).join(', ')

function exchange (e: Exchange): string[] {
  const { request, response } = e
  const body = request.bytes === 0 ? '(no body)' : `${request.body}${request.chunked ? ' (chunked)' : ''}`
  const lines = [`        sent: ${request.method} ${headers(request.headers) || '(no header)'}  ${request.method === 'POST' ? body : ''}`.trimEnd()]
  lines.push(response === undefined
    ? `        got:  ${e.unanswered ?? ''}`
    : `        got:  ${response.status} ${headers(response.headers)}  ${response.body}${response.cut === undefined ? '' : ` (cut: ${response.cut})`}`.trimEnd())
  return lines
}

function line (result: CheckResult): string {
  return `  ${result.outcome.padEnd(4)}  ${result.level.padEnd(6)}  ${result.id}: ${result.title}` +
    (result.outcome !== 'pass' && result.detail !== undefined ? `\n        ${result.detail}` : '')
}

/** What the decoder wrote and what became of it: refusals grouped by why, each with what foresaw it. */
function actor (tally: ActorReport): string[] {
  const head = `The ${tally.decoder} actor (${tally.version})`
  const profile = `  lint's ${tally.decoder} profile describes ${tally.profile}`
  if (tally.refusedForm !== undefined) return [`${head}: refuses s: ${tally.refusedForm}`, profile]
  const out = [`${head}: ${counted(tally.written, 'body', 'bodies')} written, ${tally.accepted} acted on, ${tally.refused} refused` +
    (tally.unanswered > 0 ? `, ${tally.unanswered} not sent` : '') + (tally.gated > 0 ? `, ${tally.gated} answered by the host's gate` : '') + (tally.dropped > 0 ? `; ${tally.dropped} walks dropped at the token bound` : '') +
    (tally.gaveUp === undefined ? '' : `; ${tally.gaveUp.count} walks the sampler gave up on (${tally.gaveUp.why})`)]
  const groups = new Map<string, Refusal[]>()
  for (const refusal of tally.refusals) {
    const { finding } = refusal
    const key = `${refusal.why}: ${finding === undefined ? 'unexplained' : `foreseen by lint, ${finding.rule} at ${finding.pointer === '' ? '(form)' : finding.pointer}`}`
    groups.set(key, [...groups.get(key) ?? [], refusal])
  }
  for (const [key, list] of groups) out.push(`  ${list.length} ${key}`, `      e.g. ${(list[0] as Refusal).body}`)
  return [...out, profile]
}

export function formatReport (report: Report): string {
  const out = [`fastify-gpt check ${report.target} (${report.draft})`, '']
  const failed = report.results.filter((r) => r.outcome === 'fail')
    .sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level))
  if (failed.length > 0) {
    out.push('Failed:')
    for (const result of failed) out.push(line(result), ...(result.exchanges ?? []).flatMap(exchange))
    out.push('')
  }
  const sections = [...new Set(report.results.map((r) => r.section))].sort((a, b) => place(a) - place(b))
  for (const section of sections) {
    out.push(`§${section} ${SECTIONS[section] ?? ''}`.trimEnd())
    // failures were shown in full above; a skip says why
    for (const result of report.results.filter((r) => r.section === section)) {
      out.push(result.outcome === 'fail' ? line(result).split('\n')[0] as string : line(result))
    }
  }
  if (report.gate !== undefined) out.push('', ...gate(report.gate))
  if (report.links !== undefined) out.push('', ...links(report.links))
  if (report.form !== undefined) {
    const { errors, warnings, runtimes } = report.form
    const who = (verdict: string): string => runtimes.filter((r) => r.verdict === verdict).map((r) => r.decoder).join(', ') || 'none'
    out.push('', `The form (fastify-gpt lint: advice for its author, not checks): ${counted(errors, 'error')}, ${counted(warnings, 'warning')}`,
      `  exact: ${who('exact')}`, `  loosened: ${who('loosened')}`, `  refused: ${who('refused')}`)
  }
  if (report.actor !== undefined) out.push('', ...actor(report.actor))
  if (report.mcp !== undefined) out.push('', ...bridge(report.mcp))
  const { pass, fail, skip, gate: shut } = report.counts
  const musts = failed.filter((r) => r.level === 'MUST').length
  out.push('', `${pass} passed, ${fail} failed (${musts} MUST), ${skip} skipped${shut > 0 ? `, ${shut} gated` : ''}; ${counted(report.requests, 'request')}` +
    (report.rateLimited > 0 ? `, ${report.rateLimited} rate limited (429, waited out)` : ''))
  if (report.unfinished !== undefined) out.push(`not checked in full: ${report.unfinished}`)
  out.push(report.ok ? 'conformant as far as checked' : `not conformant${report.strict ? ' (strict: SHOULD counts)' : ''}`)
  // what an address sent is shown, never acted on by the terminal
  return visible(out.join('\n'), true) + '\n'
}

/** The host's gate: what it answered, and what would pass it, or why its 401s look like refusals. */
function gate (report: GateReport): string[] {
  const what = `${counted(report.gated, 'POST')} answered ${report.status}` +
    (report.challenge === undefined ? '' : ` (WWW-Authenticate: ${report.challenge})`)
  if (report.through > 0) {
    return [`The host's gate (auth in front of the address): ${what}, yet ${report.through} reached the address (204 or acted on)`,
      `  a gate answers every POST alike: one that lets some bodies through judges them, and its ${report.status} is a refusal (5.3)`]
  }
  const sent = report.sent === undefined ? '' : `; the headers given (${report.sent.join(', ')}) did not pass it`
  return [`The host's gate (auth in front of the address): ${what}, none reached the address${sent}`,
    `  the acts were not checked: to check them, give the credentials an actor sends, ${passWith(report)}`]
}

const addresses = (n: number): string => `${n} address${n === 1 ? '' : 'es'}`

/** Where the links led: each address read and what it names, then loops, other origins, non-addresses. */
function links (graph: LinkGraph): string[] {
  const { counts } = graph
  const out = [`Links (l followed ${counted(graph.depth, 'hop')}, plain GETs only): ${addresses(counts.addresses)} read`]
  for (const address of graph.addresses) {
    out.push(`  ${address.url}${address.links.length === 0 ? ' names no address here' : ` -> ${address.links.join(', ')}`}`)
  }
  for (const loop of graph.loops) out.push(`  loop: ${loop.length === 1 ? `${loop[0] ?? ''} names itself` : `${loop.join(', ')} lead to one another`}`)
  for (const link of graph.offOrigin) out.push(`  leaves the origin, not followed: ${link.href} (named by ${link.from})`)
  for (const link of graph.notAddresses) out.push(`  not an address: ${link.href} (named by ${link.from}): ${link.why}`)
  const more = (shown: number, count: number, what: string): void => { if (count > shown) out.push(`  and ${count - shown} more ${what}`) }
  more(graph.addresses.length, counts.addresses, 'addresses read')
  more(graph.offOrigin.length, counts.offOrigin, 'links leaving the origin')
  more(graph.notAddresses.length, counts.notAddresses, 'links to what is not an address')
  if (counts.beyond > 0) out.push(`  ${addresses(counts.beyond)} named past ${counted(graph.depth, 'hop')}, not read`)
  if (counts.unread > 0) out.push(`  ${counted(counts.unread, 'target')} not read${graph.stopped === undefined ? '' : `: ${graph.stopped}`}`)
  return out
}

/** The bridge: the tool found and how, the bodies sent both ways, and the one refusal every refused call must be. */
function bridge (mcp: McpReport): string[] {
  const { tool, sent } = mcp
  const version = mcp.protocolVersion === undefined ? '' : ` (MCP ${mcp.protocolVersion})`
  if (tool === undefined) return [`The MCP bridge ${mcp.url}${version}: no tool found for the address`]
  const schema = tool.wrapped === undefined ? '' : tool.wrapped ? '; the body goes in arguments.value' : '; the body is the arguments'
  const out = [`The MCP bridge ${mcp.url}${version}: the tool "${tool.name}", found by ${tool.by === 'address' ? '_meta["fastify-gpt/address"]' : 'its name'}${schema}`,
    `  ${counted(sent.refused + sent.admitted, 'body', 'bodies')} sent as POST and as tools/call (${sent.refused} s refuses, ${sent.admitted} it admits): ` +
    (mcp.disagreed === 0 ? 'acted on and refused alike' : `${mcp.disagreed} acted on by one and refused by the other`)]
  if (mcp.refusal !== undefined) out.push(`  a refused call: ${mcp.refusal}`)
  return out
}
