// Content negotiation (draft §3.3; RFC 9110 §12.5.1), held to an independent reading: what
// @fastify/accepts (accepts 1.3 over negotiator 0.6) prefers for the same Accept field, among
// fields that name the type by name (docs/decisions.md: `text/*` alone gets the JSON).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import accepts from '@fastify/accepts'
import fc from 'fast-check'
import Fastify from 'fastify'
import { ACCEPT_READ, prefers } from '../../src/address/negotiate.ts'

const OFFERS = [['application/json', 'text/html'], ['application/x-ndjson', 'text/event-stream']] as const

async function judge () {
  const app = Fastify()
  await app.register(accepts)
  app.get('/', async (request) => OFFERS.map((offered) => {
    const theirs = request.accepts().type([...offered])
    const named = (wanted: string): boolean => String(request.headers.accept).toLowerCase().includes(wanted)
    return offered.map((wanted) => ({ ours: prefers(request, offered, wanted), theirs: named(wanted) && theirs === wanted }))
  }))
  return app
}

const range = fc.constantFrom('text/html', 'TEXT/HTML', 'text/*', 'application/json', 'application/*', '*/*', 'text/event-stream',
  'application/x-ndjson', 'image/png', 'text/html;level=1', 'text/htmlx', 'application/xhtml+xml', 'text/plain')
const quality = fc.constantFrom('', ';q=0', ';q=0.1', ';q=0.5', ';q=0.9', ';q=1', ';Q=0.5', ';q=1.0', ';q=0.001')
const field = fc.array(fc.tuple(range, quality).map(([r, q]) => r + q), { minLength: 1, maxLength: 5 })
  .chain((parts) => fc.constantFrom(', ', ',', ' , ').map((comma) => parts.join(comma)))

describe('prefers', () => {
  it('agrees with @fastify/accepts on which offer an Accept field prefers', async () => {
    const app = await judge()
    await fc.assert(fc.asyncProperty(field, async (accept) => {
      const answers = (await app.inject({ url: '/', headers: { accept } })).json() as { ours: boolean, theirs: boolean }[][]
      for (const pair of answers) for (const { ours, theirs } of pair) assert.equal(ours, theirs, accept)
    }), { numRuns: 500 })
    await app.close()
  })

  it('prefers neither offer without an Accept field, or with one that does not name it', () => {
    const request = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as Parameters<typeof prefers>[0]
    assert.equal(prefers(request(), ['application/json', 'text/html'], 'text/html'), false)
    assert.equal(prefers(request('*/*'), ['application/json', 'text/html'], 'text/html'), false)
    assert.equal(prefers(request('text/*'), ['application/json', 'text/html'], 'text/html'), false)
    assert.equal(prefers(request('text/html'), ['application/json', 'text/html'], 'text/html'), true)
  })

  it('reads a long Accept field up to its last whole range within ACCEPT_READ bytes', () => {
    const request = (accept: string) => ({ headers: { accept } }) as Parameters<typeof prefers>[0]
    const offered = ['application/json', 'text/html']
    const junk = (bytes: number): string => Array.from({ length: Math.ceil(bytes / 10) }, (_, i) => `x/y${String(i).padStart(6, '0')}`).join(',')
    // named early, then 16 KB of other ranges: decided by what is read
    assert.equal(prefers(request(`text/html,application/json;q=0.5,${junk(16_000)}`), offered, 'text/html'), true)
    assert.equal(prefers(request(`text/html;q=0.5,application/json,${junk(16_000)}`), offered, 'text/html'), false)
    // named only past the bytes read: not named at all
    assert.equal(prefers(request(`${junk(ACCEPT_READ + 100)},text/html`), offered, 'text/html'), false)
    // a range cut by the bound is left out, not read in part: "text/html" whole just inside, its
    // ";q=0" just outside would otherwise make it preferred
    const filler = junk(ACCEPT_READ - 40)
    const cut = `${filler},application/json;q=0.5,text/html${';q=0'.padEnd(60, ' ')}`
    assert.ok(cut.indexOf('text/html') < ACCEPT_READ && cut.length > ACCEPT_READ)
    assert.equal(prefers(request(cut), offered, 'text/html'), false)
    // and a field within the bound is read whole
    const whole = `${junk(ACCEPT_READ - 60)},text/html`
    assert.ok(whole.length <= ACCEPT_READ)
    assert.equal(prefers(request(whole), offered, 'text/html'), true)
  })
})
