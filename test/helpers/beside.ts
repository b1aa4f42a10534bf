import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { LightMyRequestResponse } from 'fastify'

/**
 * The draft's invariants, asserted on an address beside a host's plugins: checks shared by the
 * test/hosts-*.test.ts files, each of which registers the real plugin.
 */

/** A small closed form whose bodies the tests post. */
export const noteForm = {
  type: 'object',
  properties: { note: { type: 'string', minLength: 1, maxLength: 40 } },
  required: ['note'],
  additionalProperties: false
} as const

/** Headers that say when, not what: left out when two answers are compared. */
const WHEN = new Set(['date', 'x-request-id', 'keep-alive'])

/** Status, headers (but the date) and bytes of a response, to compare two answers. */
export function shape (response: LightMyRequestResponse): { status: number, headers: Record<string, unknown>, body: string } {
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !WHEN.has(name)))
  return { status: response.statusCode, headers, body: response.rawPayload.toString('base64') }
}

/**
 * draft §3.1, §3.2: a GET with no header gets 200 JSON {p, m, s}; and the same GET after contact of
 * every kind (an arrival, an act, a rejection, a cookie) gets the same status, headers and bytes.
 */
export async function arrivalNeedsNothingAndNeverVaries (app: FastifyInstance, path: string, contact: InjectOptions[], get: InjectOptions = {}): Promise<void> {
  const bare = await app.inject({ method: 'GET', url: path })
  assert.equal(bare.statusCode, 200, 'GET needs no header')
  assert.match(String(bare.headers['content-type']), /^application\/json/)
  const arrival = bare.json()
  assert.deepEqual(Object.keys(arrival).sort(), ['m', 'p', 's'])

  const first = await app.inject({ method: 'GET', url: path, ...get })
  for (const request of contact) await app.inject(request)
  const again = await app.inject({ method: 'GET', url: path, ...get, headers: { ...get.headers, cookie: 'seen=1' } })
  assert.deepEqual(shape(again), shape(first), 'the arrival does not vary with prior contact')
}

/**
 * draft §5.3: every one of these bodies gets the same bare 204 as a body of the wrong type. `common`:
 * headers every request carries (an actor's credentials).
 */
export async function everyRejectionTheSameBare204 (app: FastifyInstance, path: string, requests: InjectOptions[], common: Record<string, string> = {}): Promise<void> {
  const reference = shape(await app.inject({ method: 'POST', url: path, payload: '{"note":1}', headers: common }))
  assert.equal(reference.status, 204)
  assert.equal(reference.body, '')
  for (const request of requests) {
    const response = await app.inject({ method: 'POST', url: path, ...request, headers: { ...common, ...request.headers } })
    assert.deepEqual(shape(response), reference, `the same bare 204 for ${JSON.stringify(request.headers ?? {})} ${String(request.payload ?? '').slice(0, 60)}`)
  }
}
