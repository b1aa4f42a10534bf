// A small GPT address written by hand (not with fastify-gpt), conformant unless told to break one
// rule: the checker's tests run against each fault and expect exactly the checks it breaks to fail.
import { Ajv2020 } from 'ajv/dist/2020.js'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { parse } from '../../src/parse/parse.ts'

export const faultyForm = {
  type: 'object',
  properties: {
    note: { type: 'string', minLength: 1, maxLength: 20 },
    stars: { type: 'integer', minimum: 1, maximum: 5 },
    tag: { enum: ['red', 'blue'] },
    meta: {
      type: 'object',
      properties: { by: { type: 'string', maxLength: 10 } },
      required: ['by'],
      additionalProperties: false
    }
  },
  required: ['note', 'stars', 'meta'],
  additionalProperties: false
} as const

export type Fault =
  | 'none' // conformant
  | 'duplicates' // parses with Fastify's default JSON parser
  | 'explains' // answers 400 with the validator's message
  | 'coerces' // validates with type coercion ("1" becomes 1)
  | 'cookie' // the arrival greets a returning visitor
  | 'trailing' // takes the first JSON value and ignores what follows
  | 'media' // 406 for an Accept it does not offer, 415 for a body not labelled JSON
  | 'ignores' // its validator ignores maxLength
  | 'stricter' // validates against a form stricter than the one it publishes (tag required)
  | 'gated' // refuses acts that carry GPT-Actor
  | 'text' // answers an act with text/plain

const BODY_LIMIT = 65536

export async function faultyHost (fault: Fault): Promise<{ app: FastifyInstance, acts: unknown[] }> {
  const acts: unknown[] = []
  const app = Fastify()
  const refuse = (reply: FastifyReply): FastifyReply => reply.code(204).send()

  const compiled = fault === 'ignores'
    ? withoutMaxLength(faultyForm)
    : fault === 'stricter' ? { ...faultyForm, required: [...faultyForm.required, 'tag'] } : faultyForm
  const validate = new Ajv2020({ coerceTypes: fault === 'coerces' }).compile(compiled as object)
  const defaultParser = app.getDefaultJsonParser('ignore', 'ignore')
  const read = (bytes: Buffer): unknown => {
    if (fault === 'duplicates') {
      return new Promise((resolve, reject) => defaultParser({} as FastifyRequest, bytes.toString('utf8'), (error, value) => error ? reject(error) : resolve(value)))
    }
    if (fault === 'trailing') return firstValue(bytes)
    return parse(bytes)
  }

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body))
  app.setErrorHandler((_error, _request, reply) => refuse(reply)) // too large, unreadable: refused alike

  app.get('/', (request, reply) => {
    const accept = request.headers.accept
    if (fault === 'media' && accept !== undefined && !/json|\*\/\*|text\/html/.test(accept)) return reply.code(406).send()
    const p = fault === 'cookie' && request.headers.cookie !== undefined ? 'Welcome back. Leave a note.' : 'Leave a note.'
    return reply.type('application/json').send(JSON.stringify({ p, m: [], s: faultyForm }))
  })

  app.post('/', async (request, reply) => {
    if (fault === 'media' && request.headers['content-type'] !== 'application/json') return reply.code(415).send()
    const bytes = request.body
    if (!Buffer.isBuffer(bytes) || bytes.length === 0) return refuse(reply)
    let value: unknown
    try {
      value = await read(bytes)
    } catch {
      return refuse(reply)
    }
    if (fault === 'gated' && request.headers['gpt-actor'] !== undefined) return refuse(reply)
    if (!validate(value)) {
      if (fault === 'explains') return reply.code(400).send({ message: new Ajv2020().errorsText(validate.errors) })
      return refuse(reply)
    }
    acts.push(value)
    if (fault === 'text') return reply.type('text/plain').send(`act ${acts.length}`)
    return { acts: acts.length }
  })
  await app.ready()
  return { app, acts }
}

function withoutMaxLength (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutMaxLength)
  if (schema === null || typeof schema !== 'object') return schema
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'maxLength').map(([key, value]) => [key, withoutMaxLength(value)]))
}

/** The longest prefix that ends a container and parses: a lenient reader that ignores trailing bytes. */
function firstValue (bytes: Buffer): unknown {
  for (let end = bytes.length; end > 0; end--) {
    const last = bytes[end - 1]
    if (last !== 0x7d && last !== 0x5d && end !== bytes.length) continue
    try {
      return parse(bytes.subarray(0, end))
    } catch {}
  }
  throw new Error('no JSON value')
}
