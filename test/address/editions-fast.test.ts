// What an update builds at once and what waits for its first reader (the default page) must serve
// the same bytes as an address registered afresh with the same content: the full build. Searched
// with fast-check over runs of updates (appends to m, new prompts, new forms, refused changes)
// with requests for the JSON, the page, HEAD and If-Match acts interleaved at random, so that some
// pages are rendered at once, some late, some never.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import { reused } from '../../src/address/editions/shared.ts'

const forms = [
  { type: 'object', properties: { note: { type: 'string', maxLength: 280, description: 'A note <b>&' } }, required: ['note'], additionalProperties: false },
  { type: 'object', properties: { choice: { enum: ['a', 'b'] }, n: { type: 'integer', minimum: 0 } }, required: ['choice'], additionalProperties: false },
  { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } }, additionalProperties: false }
] as const

const text = fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'Z', ' ', '.', '<', '&', '"', '\n', 'é', '💡') })
const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'other'), content: text })

type Step =
  | { kind: 'append', message: { role: string, content: string } }
  | { kind: 'messages', messages: { role: string, content: string }[] }
  | { kind: 'prompt', prompt: string }
  | { kind: 'form', form: number }
  | { kind: 'refused' }
  | { kind: 'read', accept: string | undefined, method: 'GET' | 'HEAD' }
  | { kind: 'ifMatch' }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: message.map((m) => ({ kind: 'append' as const, message: m })) },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 4 }).map((messages) => ({ kind: 'messages' as const, messages })) },
  { weight: 1, arbitrary: text.map((prompt) => ({ kind: 'prompt' as const, prompt })) },
  { weight: 1, arbitrary: fc.nat({ max: forms.length - 1 }).map((form) => ({ kind: 'form' as const, form })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'refused' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      accept: fc.constantFrom(undefined, 'text/html', 'application/json', 'text/html, application/json;q=0.9', '*/*'),
      method: fc.constantFrom('GET' as const, 'HEAD' as const)
    })
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'ifMatch' as const }) }
)

const base = { act: () => ({ ok: true }), rateLimit: false, type: 'test', ifMatch: true } as const

async function register (options: Partial<GptOptions>): Promise<{ app: FastifyInstance, address: GptAddress }> {
  const app = Fastify()
  let address: GptAddress | undefined
  await app.register(gpt, { ...base, form: forms[0], ...options, onAddress: (a: GptAddress) => { address = a } } as GptOptions)
  await app.ready()
  return { app, address: address! }
}

/** What a GET sends, less the date: status, headers and bytes. */
async function served (app: FastifyInstance, accept?: string): Promise<{ status: number, body: string, headers: Record<string, unknown> }> {
  const reply = await app.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } })
  const { date: _date, ...headers } = reply.headers
  return { status: reply.statusCode, body: reply.body, headers }
}

describe('an edition built at once and its page built late serve what a full build serves', () => {
  it('for any run of updates and reads: the JSON and the page equal those of the same content registered afresh', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 25 }), fc.boolean(), async (steps, lint) => {
      const { app, address } = await register({ prompt: 'Start. Here.', messages: [], lint })
      try {
        for (const s of steps) {
          if (s.kind === 'append') address.update((current) => ({ messages: [...current.messages, s.message] }))
          else if (s.kind === 'messages') address.update({ messages: s.messages })
          else if (s.kind === 'prompt') address.update({ prompt: s.prompt })
          else if (s.kind === 'form') address.update({ form: forms[s.form] as object })
          else if (s.kind === 'refused') assert.throws(() => { address.update({ form: { type: 'no such type' } }) })
          else if (s.kind === 'read') {
            const reply = await app.inject({ method: s.method, url: '/', headers: s.accept === undefined ? {} : { accept: s.accept } })
            assert.equal(reply.statusCode, 200)
          } else {
            // An If-Match act reads the page's tag too when the JSON's does not match.
            const reply = await app.inject({ method: 'POST', url: '/', headers: { 'if-match': '"not-this-one"' }, payload: '{}' })
            assert.equal(reply.statusCode, 412)
          }
        }
        const fresh = await register({ prompt: address.prompt, messages: address.messages, form: address.form, lint })
        try {
          for (const accept of [undefined, 'text/html']) {
            assert.deepEqual(await served(app, accept), await served(fresh.app, accept), `Accept: ${accept}`)
          }
          assert.equal(address.etag, fresh.address.etag)
        } finally {
          await fresh.app.close()
        }
      } finally {
        await app.close()
      }
    }), { numRuns: 60 })
  })

  it('a page is rendered once per edition, when first asked for, and never when no one asks', async () => {
    const stringify = JSON.stringify
    let calls = 0
    const counted = async <T>(run: () => Promise<T> | T): Promise<number> => {
      const before = calls
      JSON.stringify = ((...args: Parameters<typeof stringify>) => { calls++; return stringify(...args) }) as typeof stringify
      try {
        await run()
      } finally {
        JSON.stringify = stringify
      }
      return calls - before
    }
    // The page shows the form indented (one stringify): 50 appends cost no more with the page on
    // than with it off, as long as no one asks for it.
    const appends = async (html: boolean): Promise<{ app: FastifyInstance, cost: number }> => {
      const { app, address } = await register({ prompt: 'A board.', messages: [], lint: false, html })
      const cost = await counted(() => {
        for (let i = 0; i < 50; i++) address.update((current) => ({ messages: [...current.messages, { role: 'user', content: `pin ${i}` }] }))
      })
      return { app, cost }
    }
    const off = await appends(false)
    const on = await appends(true)
    try {
      assert.equal(on.cost, off.cost)
      assert.equal(await counted(() => on.app.inject('/')), 0, 'the JSON was built with the edition')
      assert.ok(await counted(() => on.app.inject({ url: '/', headers: { accept: 'text/html' } })) > 0, 'the page is rendered on the first request that prefers it')
      assert.equal(await counted(() => on.app.inject({ url: '/', headers: { accept: 'text/html' } })), 0, 'and kept')
      const page = await on.app.inject({ url: '/', headers: { accept: 'text/html' } })
      assert.match(page.body, /pin 49/)
    } finally {
      await Promise.all([on.app.close(), off.app.close()])
    }
  })
})

describe('an edition read from Redis takes the messages an instance holds as held', () => {
  const held = fc.array(message, { maxLength: 12 })
  // What another instance may have written: held messages, their members in another order, with
  // one more member, with a value that is not a string, and things that are not messages at all.
  const written = (messages: readonly { role: string, content: string }[]): fc.Arbitrary<unknown[]> => fc.array(fc.oneof(
    messages.length === 0 ? message : fc.constantFrom(...messages),
    message,
    message.map(({ role, content }) => ({ content, role })),
    message.map((m) => ({ ...m, extra: 1 })),
    fc.record({ role: fc.constantFrom('user'), content: fc.integer() }),
    fc.constantFrom(null, 'user', 1, [], ['role', 'content'])
  ), { maxLength: 16 })

  it('for any stored messages: the same JSON, each one the stored value or a held message, and every one written as held taken from it', () => {
    const cases = fc.tuple(held, held).chain(([current, base]) => fc.tuple(fc.constant(current), fc.constant(base), written([...current, ...base])))
    fc.assert(fc.property(cases, ([current, base, stored]) => {
      const text = JSON.stringify(stored)
      const parsed = JSON.parse(text) as unknown[]
      const result = reused(parsed, [current, base])!
      assert.equal(JSON.stringify(result), text, 'the bytes of the stored text')
      const known = new Set<unknown>([...current, ...base])
      result.forEach((value, i) => {
        const sameAsHeld = [...current, ...base].some((m) => JSON.stringify(m) === JSON.stringify(parsed[i]))
        if (sameAsHeld) assert.ok(known.has(value), `/${i} is taken from what is held`)
        else assert.equal(value, parsed[i], `/${i} is left as stored`)
      })
    }), { numRuns: 500 })
  })

  it('leaves what is not an array to the checks that refuse it', () => {
    for (const stored of [undefined, null, 'm', 1, { 0: { role: 'user', content: 'x' } }]) assert.equal(reused(stored, [[{ role: 'user', content: 'x' }]]), undefined)
  })
})
