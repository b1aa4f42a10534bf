// Type tests: checked by `npm run typecheck` (tsc), never run. Each @ts-expect-error fails the
// check if the error it expects goes away, so these assertions can fail both ways.
import Fastify from 'fastify'
import gpt, { withLinks, type Body, type Link } from '../src/index.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const expectType = <T extends true>(): T => true as T

const app = Fastify()

// A const form types act's body.
await app.register(gpt, {
  form: {
    type: 'object',
    properties: { note: { type: 'string' }, stars: { type: 'integer' }, tag: { enum: ['a', 'b'] } },
    required: ['note'],
    additionalProperties: false
  },
  act: (body, request) => {
    expectType<Equal<typeof body, { note: string, stars?: number, tag?: 'a' | 'b' }>>()
    const actor: string | undefined = request.gptActor
    // @ts-expect-error the form admits no member x
    return { note: body.note, x: body.x, actor }
  }
})

// Fastify's register options go alongside.
await app.register(gpt, { prefix: '/poll', form: { enum: ['tabs', 'spaces'] }, act: (choice) => choice.toUpperCase() })

// A form typed loosely (loaded from JSON, say) gives `unknown`, never `any`.
const loaded: Record<string, unknown> = JSON.parse('{"type":"string"}')
await app.register(gpt, {
  form: loaded,
  act: (body) => {
    expectType<Equal<typeof body, unknown>>()
    return null
  }
})

expectType<Equal<Body<{ readonly type: 'integer' }>, number>>()

// @ts-expect-error act is required
await app.register(gpt, { form: { type: 'string' } })

// @ts-expect-error prompt is a string
await app.register(gpt, { form: {}, act: () => null, prompt: 1 })

// A const form held in a variable types act's body just as well.
const poll = { enum: ['tabs', 'spaces'] } as const
await app.register(gpt, {
  form: poll,
  act: (choice) => {
    expectType<Equal<typeof choice, 'tabs' | 'spaces'>>()
    return choice
  }
})

// A misspelt option is a type error, as it is an error at registration.
// @ts-expect-error promt is no option
await app.register(gpt, { promt: 'x', form: poll, act: (choice) => choice })
// The error is the misspelt option's own line (`'promt' does not exist in type ...`), not the call's.
await app.register(gpt, {
  // @ts-expect-error promt is no option
  promt: 'x',
  form: poll,
  act: (choice) => choice
})
// A wrong value is its own line's error, too.
await app.register(gpt, {
  form: poll,
  // @ts-expect-error prompt is a string
  prompt: 1,
  act: (choice) => choice
})

// A recursive form (draft §4.2) never stops the host's build: FromSchema cannot follow its $refs
// to an end, so act's body is `unknown` and act names the type it expects.
const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } } as const
interface Tree { children?: Tree[] }
await app.register(gpt, {
  form: tree,
  act: (body) => {
    expectType<Equal<typeof body, unknown>>()
    // @ts-expect-error the body of a recursive form is unknown until act names its type
    return body.children
  }
})
await app.register(gpt, { form: tree, act: (node: Tree) => node.children?.length ?? 0 })
// @ts-expect-error a named type is still checked against what act does with it
await app.register(gpt, { form: tree, act: (node: Tree) => node.parent })

// Recursion through $defs, directly or through one another, and references FromSchema cannot
// resolve ($anchor names, a nested $id) give `unknown` too.
const list = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' } as const
await app.register(gpt, { form: list, act: (body) => expectType<Equal<typeof body, unknown>>() })
expectType<Equal<Body<{
  $defs: { a: { type: 'array', items: { $ref: '#/$defs/b' } }, b: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] } }
  $ref: '#/$defs/a'
}>, unknown>>()
expectType<Equal<Body<{ $defs: { s: { $anchor: 'sku', type: 'string' } }, $ref: '#sku' }>, unknown>>()
expectType<Equal<Body<{
  type: 'array'
  items: { $id: 'https://example.com/item', $defs: { n: { type: 'string' } }, $ref: '#/$defs/n' }
}>, unknown>>()
expectType<Equal<Body<{ type: 'array', items: { $id: 'https://example.com/item', type: 'string' } }>, string[]>>()

// $refs that come to an end keep their inference, however often they meet the same target.
const pair = {
  $defs: { name: { type: 'string' }, pair: { type: 'object', properties: { x: { $ref: '#/$defs/name' }, y: { $ref: '#/$defs/name' } }, required: ['x'], additionalProperties: false } },
  type: 'array',
  items: { $ref: '#/$defs/pair' }
} as const
await app.register(gpt, {
  form: pair,
  act: (pairs) => {
    expectType<Equal<typeof pairs, Array<{ x: string, y?: string }>>>()
    return pairs.map((p) => p.x)
  }
})
expectType<Equal<Body<{ type: 'object', properties: { a: { $ref: '#/properties/b' }, b: { type: 'integer' } }, additionalProperties: false }>,
  { a?: number, b?: number }>>()

// Without sharing, update() returns nothing; with it, a promise (and a function of the content is taken by both).
declare const redis: import('ioredis').Redis
await app.register(gpt, {
  form: { type: 'integer' },
  act: (n) => n,
  onAddress: (address) => {
    expectType<Equal<ReturnType<typeof address.update>, void>>()
    address.update((current) => ({ messages: [...current.messages, { role: 'user', content: 'x' }] }))
  }
})
await app.register(gpt, {
  form: { type: 'integer' },
  act: (n) => n,
  share: { redis, key: 'k' },
  onAddress: (address) => {
    expectType<Equal<ReturnType<typeof address.update>, Promise<void>>>()
    // @ts-expect-error a change has form, prompt and messages only
    address.update({ promt: 'x' }).catch(() => {})
  }
})
// @ts-expect-error share takes an ioredis client
await app.register(gpt, { form: {}, act: () => 1, share: { redis: 'redis://localhost' } })

// links: paths, or { href, p?, rel? }; withLinks keeps the result's type and adds l.
await app.register(gpt, {
  prefix: '/linked',
  form: { type: 'object', properties: { go: { enum: ['/poll'] } }, required: ['go'], additionalProperties: false },
  links: ['/poll', { href: 'https://other.example/x', p: 'Elsewhere.' }, { href: '/jobs', rel: 'monitor' }],
  act: (body, _request, reply) => {
    const result = withLinks(reply, { go: body.go }, [body.go])
    expectType<Equal<typeof result['go'], '/poll'>>()
    expectType<Equal<typeof result['l'], readonly Link[]>>()
    return result
  }
})
// @ts-expect-error a link names its target with href, nothing else
await app.register(gpt, { form: {}, act: () => null, links: [{ url: '/poll' }] })
