import { stronglyConnected } from '../graph.ts'
import { isObject } from '../json/value.ts'
import { parse } from '../parse/parse.ts'
import { wrongMembers } from './arrival.ts'
import { held, type Answer, type Client } from './client.ts'
import { MAX_ARRIVAL_VALUES, values } from './extent.ts'
import type { Results } from './results.ts'
import type { Follow, LinkGraph, Response, Send } from './types.ts'

// Appendix B, "Composition", as fastify-gpt answers it (docs/links.md): an arrival may name other
// addresses in `l`, each of which must itself be an address. The checker reads them with plain
// GETs (safe: it never acts on a target), hop by hop to a bounded depth, and says which targets are
// not addresses, which links leave the origin (named, never followed: it would check another
// server under this one's name), and which addresses lead back to themselves.

export const DEFAULT_LINK_DEPTH = 2
/** Most links of one arrival read: fastify-gpt names at most 100. */
export const MAX_LINKS_READ = 100
/** Most entries of each list a report keeps (the counts stay whole). */
const KEPT = 100
/** Most characters of a URL on another origin (or of no http(s) scheme) that a report keeps. */
const MAX_SHOWN = 2048

const mediaType = (response: Response): string => (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** What one GET of a target came to: an arrival (with what its `l` names), not an address, or not read. */
type Reading =
  | { readonly kind: 'address', readonly links: readonly unknown[] | undefined, readonly malformed?: string }
  | { readonly kind: 'not', readonly why: string, readonly answer: Answer }
  | { readonly kind: 'unread', readonly why: string }

/** Whether an answer is an arrival (draft §3.2), and if so the links it names. */
export function reading (answer: Answer): Reading {
  const response = answer.response
  if (response === undefined) return held(answer) ? { kind: 'unread', why: answer.unanswered } : { kind: 'not', why: `no answer: ${answer.unanswered}`, answer }
  if (response.status !== 200) return { kind: 'not', why: `a plain GET was answered ${response.status}`, answer }
  if (mediaType(response) !== 'application/json') return { kind: 'not', why: `answered ${response.headers['content-type'] ?? 'without Content-Type'}, not application/json`, answer }
  if (response.cut !== undefined) return { kind: 'unread', why: `its arrival was not read in full (${response.cut})` }
  if (values(response.body) > MAX_ARRIVAL_VALUES) return { kind: 'unread', why: `its arrival holds more than ${MAX_ARRIVAL_VALUES} JSON values` }
  let body: unknown
  try {
    body = parse(response.body, { maxDepth: Infinity })
  } catch (error) {
    return { kind: 'not', why: `the body is not strictly valid JSON (${(error as Error).message})`, answer }
  }
  const wrong = wrongMembers(body)
  if (wrong !== undefined || !isObject(body)) return { kind: 'not', why: wrong ?? '', answer }
  const { l } = body
  if (l === undefined) return { kind: 'address', links: undefined }
  if (!Array.isArray(l)) return { kind: 'address', links: undefined, malformed: 'l is not an array' }
  const bad = l.findIndex((entry) => !isObject(entry) || typeof entry['href'] !== 'string' || (entry['p'] !== undefined && typeof entry['p'] !== 'string'))
  return bad === -1 ? { kind: 'address', links: l } : { kind: 'address', links: l, malformed: `l/${bad} is not { href: string, p?: string }` }
}

interface Node {
  readonly url: string
  readonly depth: number
  /** Resolved URLs its l names, in order, once read. */
  links: string[]
  reading?: Reading
}

/** What following the links has found so far, and what a report keeps of it. */
interface Walk {
  readonly start: URL
  readonly depth: number
  readonly nodes: Map<string, Node>
  readonly queue: Node[]
  readonly notAddresses: { from: string, href: string, why: string }[]
  readonly offOrigin: { from: string, href: string }[]
  readonly malformed: string[]
  readonly beyond: Set<string>
  notCount: number
  offCount: number
  unread: number
  stoppedWhy: string | undefined
}

/**
 * Follows `l` from the arrival already read at `follow.url`, one GET per address, breadth first,
 * through `client` (so within the run's request budget and time limit); `route` is where the
 * client's requests go, set to each target in turn. Adds `B-links-member` and `B-links-address`.
 */
export async function followLinks (client: Client, route: { send: Send }, arrival: Response, follow: Follow, results: Results): Promise<LinkGraph> {
  const start = new URL(follow.url)
  start.hash = ''
  const walk: Walk = {
    start,
    depth: follow.depth ?? DEFAULT_LINK_DEPTH,
    nodes: new Map(),
    queue: [],
    notAddresses: [],
    offOrigin: [],
    malformed: [],
    beyond: new Set(),
    notCount: 0,
    offCount: 0,
    unread: 0,
    stoppedWhy: undefined
  }
  const first: Node = { url: start.href, depth: 0, links: [], reading: reading({ request: { method: 'GET', headers: {} }, response: arrival }) }
  walk.nodes.set(first.url, first)
  walk.queue.push(first)
  for (let at = 0; at < walk.queue.length; at++) {
    const node = walk.queue[at] as Node
    const read = node.reading ?? await get(walk, node, client, route, follow)
    if (read?.kind === 'address') enqueueLinks(walk, node, read)
  }
  const evidence = linksToNotAddresses(walk)
  for (const href of walk.beyond) if (walk.nodes.has(href)) walk.beyond.delete(href)

  const addresses = [...walk.nodes.values()].filter((node) => node.reading?.kind === 'address')
  const graph = {
    depth: walk.depth,
    addresses: addresses.slice(0, KEPT).map((node) => ({ url: node.url, depth: node.depth, links: [...new Set(node.links)] })),
    notAddresses: walk.notAddresses,
    offOrigin: walk.offOrigin,
    loops: loops(addresses),
    counts: { addresses: addresses.length, notAddresses: walk.notCount, offOrigin: walk.offCount, beyond: walk.beyond.size, unread: walk.unread },
    ...(walk.stoppedWhy === undefined ? {} : { stopped: walk.stoppedWhy })
  } satisfies LinkGraph
  report(walk, evidence, results)
  return graph
}

/** Reads a target with one GET, unless the run has stopped; what it came to is the node's reading. */
async function get (walk: Walk, node: Node, client: Client, route: { send: Send }, follow: Follow): Promise<Reading | undefined> {
  if (walk.stoppedWhy !== undefined) {
    walk.unread++
    return undefined
  }
  route.send = follow.sendTo(new URL(node.url))
  const answer = await client.exchange({ method: 'GET', headers: {} })
  const read = node.reading = reading(answer)
  if (read.kind === 'unread' && held(answer)) walk.stoppedWhy = read.why
  if (read.kind === 'unread') walk.unread++
  return read
}

/** Notes what an address's `l` names; each target on this origin not yet met joins the queue, within the depth. */
function enqueueLinks (walk: Walk, node: Node, read: Extract<Reading, { kind: 'address' }>): void {
  if (read.malformed !== undefined && walk.malformed.length < KEPT) walk.malformed.push(`${node.url}: ${read.malformed}`)
  for (const entry of (read.links ?? []).slice(0, MAX_LINKS_READ)) {
    if (!isObject(entry) || typeof entry['href'] !== 'string') continue
    const target = sameOrigin(walk, node, entry['href'])
    if (target === undefined) continue
    node.links.push(target)
    if (walk.nodes.has(target)) continue
    if (node.depth >= walk.depth) {
      walk.beyond.add(target)
      continue
    }
    const next: Node = { url: target, depth: node.depth + 1, links: [] }
    walk.nodes.set(next.url, next)
    walk.queue.push(next)
  }
}

/** The URL `href` names from `node`, if it is on the run's origin; otherwise noted as what it is. */
function sameOrigin (walk: Walk, node: Node, href: string): string | undefined {
  let target: URL
  try {
    target = new URL(href, node.url)
  } catch {
    if (walk.malformed.length < KEPT) walk.malformed.push(`${node.url}: ${JSON.stringify(href.slice(0, 200))} is not a URL reference`)
    return undefined
  }
  target.hash = ''
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    walk.notCount++
    if (walk.notAddresses.length < KEPT) walk.notAddresses.push({ from: node.url, href: target.href.slice(0, MAX_SHOWN), why: 'not an http(s) URL' })
    return undefined
  }
  if (target.origin !== walk.start.origin) {
    walk.offCount++
    if (walk.offOrigin.length < KEPT) walk.offOrigin.push({ from: node.url, href: target.href.slice(0, MAX_SHOWN) })
    return undefined
  }
  return target.href
}

/** Notes every link to a target that is not an address, once the targets' verdicts are known; returns a few of their answers. */
function linksToNotAddresses (walk: Walk): Answer[] {
  const evidence: Answer[] = []
  for (const node of walk.nodes.values()) {
    for (const href of node.links) {
      const target = walk.nodes.get(href)
      if (target?.reading?.kind !== 'not') continue
      walk.notCount++
      if (walk.notAddresses.length < KEPT) walk.notAddresses.push({ from: node.url, href, why: target.reading.why })
      if (evidence.length < 3 && !evidence.includes(target.reading.answer)) evidence.push(target.reading.answer)
    }
  }
  return evidence
}

function report (walk: Walk, evidence: Answer[], results: Results): void {
  const { malformed, notCount, unread } = walk
  if (malformed.length === 0) results.pass('B-links-member')
  else results.fail('B-links-member', malformed.slice(0, 3).join('; '))
  if (notCount > 0) {
    const [shown] = walk.notAddresses
    results.fail('B-links-address', `${notCount} link${notCount === 1 ? '' : 's'} to what is not an address, e.g. ${shown?.href ?? ''} (named by ${shown?.from ?? ''}): ${shown?.why ?? ''}`, evidence)
  } else if (unread > 0) {
    results.skip('B-links-address', `${unread} named address${unread === 1 ? ' was' : 'es were'} not read: ${walk.stoppedWhy ?? 'too large to read'}`)
  } else results.pass('B-links-address')
}

/**
 * The loops among the addresses read: each set of addresses that lead to one another through
 * links (a strongly connected part of the graph with a cycle in it: two or more addresses, or one
 * naming itself), in the order they were read.
 */
export function loops (nodes: readonly { readonly url: string, readonly links: readonly string[] }[]): string[][] {
  const index = new Map(nodes.map((node, i) => [node.url, i]))
  const edges = nodes.map((node) => [...new Set(node.links.map((href) => index.get(href)).filter((i): i is number => i !== undefined))])
  const cyclic = (part: number[]): boolean => part.length > 1 || (edges[part[0] as number] as number[]).includes(part[0] as number)
  return stronglyConnected(nodes.keys(), (i) => edges[i] as number[])
    .filter(cyclic)
    .map((part) => part.sort((a, b) => a - b))
    .sort((a, b) => (a[0] as number) - (b[0] as number))
    .map((part) => part.map((i) => (nodes[i] as { url: string }).url))
}
