import type { FastifyContextConfig, FastifySchema } from 'fastify'
import type { Settings } from './options.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'
import { titleOf } from '../sentence.ts'

/**
 * What @fastify/swagger shows of an address (docs/decisions.md, "OpenAPI"). The form is never
 * copied into the document: @fastify/swagger builds its document once and keeps it, so a copy
 * would go on showing a form after update() replaced it, a second description beside `s` (draft
 * §1, §7.3); and a form's `$defs` would not come along with its `$ref`s. Hidden by default; with
 * `openapi`, both routes are described by reference to the arrival, whose `s` is the form.
 */
export function openapiRoute (settings: Settings, part: 'arrival' | 'act'): { schema: FastifySchema | undefined, config: FastifyContextConfig } {
  const { openapi, path } = settings
  if (openapi === false) {
    // `hide` on the route's schema too, for a @fastify/swagger that reads no route transform.
    return { schema: { hide: true } as FastifySchema, config: transform({ hide: true }, path) }
  }
  const tags = openapi.tags.length === 0 ? {} : { tags: [...openapi.tags] }
  // The title as at registration: @fastify/swagger builds its document once.
  const title = titleOf(settings.title, settings.content.prompt)
  const described = part === 'arrival' ? arrival(path, title) : act(path, title, settings.idempotency !== undefined, resultResponse(settings))
  return { schema: undefined, config: transform({ ...tags, ...described }, path) }
}

/**
 * @fastify/swagger's route transform (its `config.swaggerTransform`): replaces the route's schema,
 * and its URL with the address's path (`/poll`, not the `/poll/` Fastify also routes).
 */
const transform = (schema: object, url: string): FastifyContextConfig => ({ swaggerTransform: () => ({ schema, url }) }) as FastifyContextConfig

// A response without a body (@fastify/swagger leaves out the content of `type: 'null'`).
const bare = (description: string): object => ({ description, type: 'null' })

const arrival = (path: string, title: string | undefined): object => ({
  summary: title === undefined ? 'The arrival: the prompt, the messages and the form' : `${title} (the arrival: its prompt, messages and form)`,
  description: `draft-ferguson-gpt-00 §3: GET ${path} needs no header. Its s is the form a POST to ${path} is validated against, ` +
    'as it is now: it may change, so it is read here and nowhere else.',
  response: {
    200: {
      description: 'p (what this address is), m (prior messages) and s (the form, a JSON Schema 2020-12)',
      type: 'object',
      properties: {
        p: { type: 'string' },
        m: { type: 'array', items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } }, required: ['role', 'content'] } },
        s: { type: 'object', description: 'The form: the sole statement of what the address accepts' }
      },
      required: ['p', 'm', 's']
    },
    304: bare('Not modified: the arrival named by If-None-Match is current'),
    429: bare('Too many requests: come back after Retry-After')
  }
})

const act = (path: string, title: string | undefined, idempotent: boolean, result: object): object => ({
  summary: title ?? 'An act: a JSON value the form admits',
  description: `draft-ferguson-gpt-00 §5: the body is a JSON value valid against the s that GET ${path} returns at the ` +
    'moment of the act (not repeated here: it may change). Any other body gets the same bare 204.',
  body: { description: `Any JSON value that the s of GET ${path} admits` },
  ...(idempotent ? { headers: KEY_HEADER } : {}),
  response: {
    200: result,
    204: bare('Refused: not a JSON value the form admits (always this bare answer, whatever the cause)'),
    ...(idempotent ? KEY_RESPONSES : {}),
    429: bare('Too many requests: come back after Retry-After'),
    500: bare('The act failed')
  }
})

/**
 * The 200: the result form as its schema, where it has one, which cannot go stale (an option, not
 * an edition's); unless it holds a `$ref`, which @fastify/swagger would part from its `$defs`:
 * then its words alone, as without one. With `background`, a job's handle may come instead.
 */
function resultResponse (settings: Settings): object {
  const result = settings.result?.schema
  const background = settings.background !== undefined
  const description = `The act's result, as JSON${background ? "; or, for an act that outlives background.after, a job's handle (its Link: rel=\"monitor\" names the job address)" : ''}`
  if (result === undefined || JSON.stringify(result).includes('"$ref":')) return { description }
  return { description, ...(background ? { anyOf: [result, HANDLE] } : result) }
}

const HANDLE = { type: 'object', description: "A job's handle: GET its href for the job's state, progress and result" }

// With `idempotency`, the address honours Idempotency-Key (docs/idempotency.md): said here, the
// one place a client reads of an address beside its arrival, whose members the draft fixes (§3).
const KEY_HEADER = {
  type: 'object',
  properties: {
    [IDEMPOTENCY_KEY]: {
      type: 'string',
      description: 'draft-ietf-httpapi-idempotency-key-header: a key of 1 to 255 characters; an act carrying it runs once, and a retry with the same key and body bytes gets the first answer again, with Idempotent-Replayed: true'
    }
  }
}
const KEY_RESPONSES = {
  400: bare('The Idempotency-Key is malformed'),
  409: bare('The act under this Idempotency-Key is still running: come back after Retry-After'),
  422: bare('This Idempotency-Key was used with another body')
}
