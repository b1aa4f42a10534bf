// The worst Accept field against a short one that asks for the page, and against a GET without one
// (draft §3.3, §7.4): 16 KB (what Node admits of header fields) of ranges that all name text/html,
// sent to an address; and the negotiation alone, as the address reads the field (at most
// ACCEPT_READ bytes) and as negotiator reads it whole (as the address did before). In one process,
// the GETs through Fastify's inject; medians of rounds.
// Run: node --import ./test/register.js benchmarks/accept.ts [--quick]
// Writes benchmarks/results/accept-latest.json (see docs/benchmarks.md).
import { mkdirSync, writeFileSync } from 'node:fs'
import Fastify from 'fastify'
import Negotiator from 'negotiator'
import gpt from '../src/index.ts'
import { ACCEPT_READ, prefers } from '../src/address/negotiate.ts'
import { noteForm } from '../test/helpers/host.ts'
import { machine, median } from './processes.ts'

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 1 : 9
const REQUESTS = quick ? 20 : 2_000

// 16 KB of ranges, each naming text/html with another quality: negotiator parses and sorts them all
const worst = Array.from({ length: 1_600 }, (_, i) => `text/html;q=0.${i % 10}`).join(',').slice(0, 16_000)

const app = Fastify()
await app.register(gpt, { form: noteForm, act: () => null, rateLimit: false, lint: false })
await app.ready()

async function perGet (headers: Record<string, string>, expect: string): Promise<number> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < REQUESTS; i++) {
    const response = await app.inject({ url: '/', headers })
    if (!String(response.headers['content-type']).startsWith(expect)) throw new Error(`expected ${expect}, got ${String(response.headers['content-type'])}`)
  }
  return Number(process.hrtime.bigint() - start) / REQUESTS
}

const OFFERED = ['application/json', 'text/html']
/** ns per call of `read`, over `calls` calls. */
function per (calls: number, read: () => unknown): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) read()
  return Number(process.hrtime.bigint() - start) / calls
}
// the negotiation alone: as the address reads the field now, and as negotiator reads it whole
const request = { headers: { accept: worst } } as unknown as Parameters<typeof prefers>[0]
const bounded = (): boolean => prefers(request, OFFERED, 'text/html')
const whole = (): unknown => new Negotiator({ headers: { accept: worst } }).mediaType(OFFERED)

const samples = { plain: [] as number[], page: [] as number[], worst: [] as number[], bounded: [] as number[], wholeField: [] as number[] }
await perGet({}, 'application/json') // warm-up
await perGet({ accept: 'text/html' }, 'text/html')
await perGet({ accept: worst }, 'text/html')
for (let round = 0; round < ROUNDS; round++) {
  samples.plain.push(await perGet({}, 'application/json'))
  samples.page.push(await perGet({ accept: 'text/html' }, 'text/html'))
  samples.worst.push(await perGet({ accept: worst }, 'text/html'))
  samples.bounded.push(per(REQUESTS, bounded))
  samples.wholeField.push(per(Math.max(1, REQUESTS / 20), whole))
}
await app.close()

const result = {
  acceptBytes: worst.length,
  acceptRead: ACCEPT_READ,
  plainGetNs: median(samples.plain),
  pageGetNs: median(samples.page),
  worstGetNs: median(samples.worst),
  boundedNegotiationNs: median(samples.bounded),
  wholeFieldNegotiationNs: median(samples.wholeField)
}
const µs = (ns: number): string => `${(ns / 1000).toFixed(1)} µs`
console.log(`GET without Accept ${µs(result.plainGetNs)}; with Accept: text/html ${µs(result.pageGetNs)}; with a ${worst.length}-byte Accept naming text/html ` +
  `${µs(result.worstGetNs)} (${(result.worstGetNs / result.pageGetNs).toFixed(2)}x the short one); negotiating it: ${µs(result.boundedNegotiationNs)} ` +
  `as the address reads it (at most ${ACCEPT_READ} bytes), ${µs(result.wholeFieldNegotiationNs)} read whole`)
if (!quick) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  writeFileSync(new URL('results/accept-latest.json', import.meta.url), JSON.stringify({ ...machine(), rounds: ROUNDS, requests: REQUESTS, ...result }, null, 2) + '\n')
}
