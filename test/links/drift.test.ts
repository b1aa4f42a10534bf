// An address naming others re-describes a target only when the target's prompt changes, and its
// page waits for a request that prefers it. Neither may let what it serves drift from the targets'
// prompts (draft §7.3): searched with fast-check over runs of updates of the targets (prompts,
// messages, forms) and of the namer, with reads of its JSON and its page interleaved at random, each
// arrival compared with the same addresses registered afresh.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import { firstSentence } from '../../src/sentence.ts'

const forms = [
  { type: 'object', properties: { note: { type: 'string' } }, required: ['note'], additionalProperties: false },
  { type: 'object', properties: { choice: { enum: ['a', 'b'] } }, required: ['choice'], additionalProperties: false }
] as const

// Random text, and prompts alike in length and words, which differ in what a link says of them.
const sentence = fc.oneof(
  fc.string({ maxLength: 30, unit: fc.constantFrom('a', 'B', ' ', '.', '!', '\n', '<', '&', 'é') }),
  fc.constantFrom('Vote. Now.', 'Pick. Now.', 'Vote! Now.', 'Vote. Later.', '\nVote. Now.', 'Target 0. It waits.')
)

type Step =
  | { kind: 'prompt', target: number, prompt: string }
  | { kind: 'append', target: number, content: string }
  | { kind: 'form', target: number, form: number }
  | { kind: 'own', prompt: string }
  | { kind: 'read', html: boolean }

const TARGETS = 3
const target = fc.nat({ max: TARGETS - 1 })
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('prompt' as const), target, prompt: sentence }),
  fc.record({ kind: fc.constant('append' as const), target, content: sentence }),
  fc.record({ kind: fc.constant('form' as const), target, form: fc.nat({ max: forms.length - 1 }) }),
  fc.record({ kind: fc.constant('own' as const), prompt: sentence }),
  fc.record({ kind: fc.constant('read' as const), html: fc.boolean() })
)

interface Contents { prompt: string, messages: readonly { role: string, content: string }[], form: object }

/** The namer at / naming /t0 /t1 /t2 (the last with a relation of its own), each address with the content given. */
async function host (namer: Contents, targets: readonly Contents[]): Promise<{ app: FastifyInstance, addresses: GptAddress[] }> {
  const app = Fastify()
  const addresses: GptAddress[] = []
  const options = (contents: Contents, at: number): GptOptions => ({
    ...contents, act: () => ({}), rateLimit: false, lint: false, onAddress: (a: GptAddress) => { addresses[at] = a }
  } as unknown as GptOptions)
  await app.register(gpt, { ...options(namer, 0), links: ['/t0', '/t1', { href: '/t2', rel: 'next' }] } as GptOptions)
  for (const [i, contents] of targets.entries()) await app.register(gpt, { ...options(contents, i + 1), prefix: `/t${i}` })
  await app.ready()
  return { app, addresses }
}

const contents = (address: GptAddress): Contents => ({ prompt: address.prompt, messages: address.messages, form: address.form })

async function served (app: FastifyInstance, html: boolean): Promise<{ body: string, link: unknown, etag: unknown }> {
  const reply = await app.inject({ url: '/', headers: html ? { accept: 'text/html' } : {} })
  assert.equal(reply.statusCode, 200)
  return { body: reply.body, link: reply.headers.link, etag: reply.headers.etag }
}

describe('an address naming others never drifts from their prompts, however they change', () => {
  it('for any run of updates: l says each target\'s prompt now, and the arrival and page are those of a fresh host', async () => {
    const start = (i: number): Contents => ({ prompt: `Target ${i}. It waits.`, messages: [], form: forms[0] })
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 20 }), async (steps) => {
      const { app, addresses } = await host({ prompt: 'A namer.', messages: [], form: forms[0] }, [0, 1, 2].map(start))
      try {
        for (const s of steps) {
          if (s.kind === 'prompt') addresses[s.target + 1]!.update({ prompt: s.prompt })
          else if (s.kind === 'append') addresses[s.target + 1]!.update((current) => ({ messages: [...current.messages, { role: 'user', content: s.content }] }))
          else if (s.kind === 'form') addresses[s.target + 1]!.update({ form: forms[s.form] as object })
          else if (s.kind === 'own') addresses[0]!.update({ prompt: s.prompt })
          else await served(app, s.html)
          // After every step, not only at the end: what l says is the targets' prompts now.
          const l = JSON.parse((await served(app, false)).body).l as { href: string, p?: string }[]
          assert.deepEqual(l.map((entry) => entry.p), [1, 2, 3].map((i) => firstSentence(addresses[i]!.prompt)))
        }
        const fresh = await host(contents(addresses[0]!), addresses.slice(1).map(contents))
        try {
          for (const html of [false, true]) assert.deepEqual(await served(app, html), await served(fresh.app, html), html ? 'the page' : 'the JSON')
        } finally {
          await fresh.app.close()
        }
      } finally {
        await app.close()
      }
    }), { numRuns: 60 })
  })
})
