import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { describe, it } from 'node:test'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { request } from 'node:http'
import compress from '@fastify/compress'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress } from '../../src/index.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204, noteForm } from '../helpers/beside.ts'
import { eventually, slowHost } from '../helpers/jobs.ts'

/** A host running @fastify/compress with its defaults, and an address at /notes beside a plain route. */
async function compressed (options: { ifMatch?: boolean, form?: object } = {}): Promise<{ app: FastifyInstance, seen: unknown[], address: GptAddress }> {
  const app = Fastify()
  const seen: unknown[] = []
  let address!: GptAddress
  await app.register(compress)
  app.post('/plain', async (request) => request.body)
  await app.register(gpt, {
    prefix: '/notes',
    form: options.form ?? noteForm,
    act: (body) => { seen.push(body); return { pinned: seen.length } },
    rateLimit: false,
    ifMatch: options.ifMatch ?? false,
    onAddress: (handle) => { address = handle }
  })
  await app.ready()
  return { app, seen, address }
}

const CODINGS = {
  gzip: gzipSync,
  br: brotliCompressSync,
  deflate: deflateSync,
  identity: (bytes: Buffer) => bytes
}

// A form long enough (over @fastify/compress's 1024-byte threshold) that its arrival is compressed.
const longForm = {
  ...noteForm,
  description: 'A note for the board. '.repeat(80)
}

describe('§5.2 an act beside @fastify/compress', () => {
  for (const [coding, encode] of Object.entries(CODINGS)) {
    it(`takes a ${coding}-encoded act, and the act sees exactly the decoded value`, { timeout: 30_000 }, async () => {
      const { app, seen } = await compressed()
      const response = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
        payload: encode(Buffer.from('{"note":"é ok"}'))
      })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(seen, [{ note: 'é ok' }])
      await app.close()
    })
  }

  it('answers any body, gzip-encoded, exactly as it answers it unencoded (property)', { timeout: 120_000 }, async () => {
    const app = Fastify()
    const seen: unknown[] = []
    await app.register(compress)
    await app.register(gpt, { form: {}, act: (body) => { seen.push(body); return body }, rateLimit: false, maxDepth: 16 })
    await app.ready()
    await fc.assert(fc.asyncProperty(fc.oneof(fc.json({ depthSize: 'small' }), fc.string(), fc.constant('{"a":1,"a":2}')), async (text) => {
      seen.length = 0
      const bytes = Buffer.from(text)
      const plain = await app.inject({ method: 'POST', url: '/', payload: bytes, headers: { 'content-type': 'application/json' } })
      const zipped = await app.inject({ method: 'POST', url: '/', payload: gzipSync(bytes), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
      assert.equal(zipped.statusCode, plain.statusCode)
      assert.equal(zipped.body, plain.body)
      if (plain.statusCode === 200) assert.deepEqual(seen[1], seen[0])
    }), { numRuns: 150 })
    await app.close()
  })

  it('on a real socket: a gzip-encoded act is answered, not held for bodyTimeout', { timeout: 30_000 }, async () => {
    const { app, seen } = await compressed()
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const response = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'accept-encoding': 'identity' },
      body: gzipSync('{"note":"over the wire"}'),
      signal: AbortSignal.timeout(20_000) // bodyTimeout is 10 s: the old fault answered 204 after it
    })
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { pinned: 1 })
    assert.deepEqual(seen, [{ note: 'over the wire' }])
    await app.close()
  })

  it('reads a body a host preParsing hook hands on paused, as a plain route does', { timeout: 30_000 }, async () => {
    const app = Fastify()
    const seen: unknown[] = []
    app.addHook('preParsing', async (_request, _reply, payload) => {
      const paused = new PassThrough()
      payload.pipe(paused)
      paused.pause()
      return paused
    })
    app.post('/plain', async (request) => request.body)
    await app.register(gpt, { prefix: '/count', form: { type: 'integer' }, act: (n) => { seen.push(n); return n }, rateLimit: false })
    const plain = await app.inject({ method: 'POST', url: '/plain', payload: '3', headers: { 'content-type': 'application/json' } })
    const address = await app.inject({ method: 'POST', url: '/count', payload: '3', headers: { 'content-type': 'application/json' } })
    assert.equal(plain.statusCode, 200)
    assert.equal(address.statusCode, 200)
    assert.equal(address.body, '3')
    assert.deepEqual(seen, [3])
    await app.close()
  })

  it('answers every refused body with the same bare 204: bad codings, undecodable bytes, a bomb past bodyLimit', { timeout: 30_000 }, async () => {
    const { app, seen } = await compressed()
    const json = { 'content-type': 'application/json' }
    await everyRejectionTheSameBare204(app, '/notes', [
      { headers: { ...json, 'content-encoding': 'gzip' }, payload: gzipSync('{"note":""}') },
      { headers: { ...json, 'content-encoding': 'gzip' }, payload: gzipSync('{"note":"a","note":"b"}') },
      { headers: { ...json, 'content-encoding': 'gzip' }, payload: Buffer.from('not gzip at all') },
      { headers: { ...json, 'content-encoding': 'br' }, payload: gzipSync('{"note":"a"}') },
      { headers: { ...json, 'content-encoding': 'x-unheard-of' }, payload: '{"note":"a"}' },
      // 200 KB of decoded JSON from a few hundred bytes: over bodyLimit once decoded
      { headers: { ...json, 'content-encoding': 'gzip' }, payload: gzipSync(`{"note":"${'a'.repeat(200_000)}"}`) }
    ])
    assert.deepEqual(seen, [])
    await app.close()
  })
})

describe('§3 the arrival beside @fastify/compress', () => {
  it('needs no header, and does not vary with prior contact, in each coding', async () => {
    const { app } = await compressed({ form: longForm })
    const contact = [
      { method: 'POST' as const, url: '/notes', payload: '{"note":"a"}' },
      { method: 'POST' as const, url: '/notes', payload: gzipSync('{"note":1}'), headers: { 'content-encoding': 'gzip' } },
      { method: 'GET' as const, url: '/notes', headers: { 'accept-encoding': 'br' } }
    ]
    for (const coding of ['gzip', 'br', 'identity']) {
      await arrivalNeedsNothingAndNeverVaries(app, '/notes', contact, { headers: { 'accept-encoding': coding } })
    }
    await app.close()
  })

  it('gives each content-coding its own strong ETag (RFC 9110 §8.8.3), and If-None-Match gets a 304 in each', async () => {
    const { app, address } = await compressed({ form: longForm })
    const tags = new Map<string, string>()
    for (const coding of ['gzip', 'br', 'deflate', 'identity']) {
      const response = await app.inject({ method: 'GET', url: '/notes', headers: { 'accept-encoding': coding } })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-encoding'], coding === 'identity' ? undefined : coding)
      const etag = String(response.headers.etag)
      assert.match(etag, /^"[^"]+"$/, 'strong')
      tags.set(coding, etag)
      const again = await app.inject({ method: 'GET', url: '/notes', headers: { 'accept-encoding': coding, 'if-none-match': etag } })
      assert.equal(again.statusCode, 304)
      assert.equal(again.headers.etag, etag, 'the 304 names the tag the client holds')
      assert.equal(again.body, '')
    }
    assert.equal(new Set(tags.values()).size, 4, 'one tag per coding')
    assert.equal(tags.get('identity'), address.etag)
    // Decoded, every coding carries the very bytes of the identity arrival.
    const identity = await app.inject({ method: 'GET', url: '/notes' })
    const gzip = await app.inject({ method: 'GET', url: '/notes', headers: { 'accept-encoding': 'gzip' } })
    const { gunzipSync } = await import('node:zlib')
    assert.deepEqual(gunzipSync(gzip.rawPayload), identity.rawPayload)
    await app.close()
  })

  it('keeps ifMatch working: an act echoing the tag of any coding of the current arrival acts; a stale one gets 412', async () => {
    const { app, seen, address } = await compressed({ form: longForm, ifMatch: true })
    const gzipTag = String((await app.inject({ method: 'GET', url: '/notes', headers: { 'accept-encoding': 'gzip' } })).headers.etag)
    const brTag = String((await app.inject({ method: 'GET', url: '/notes', headers: { 'accept-encoding': 'br' } })).headers.etag)
    for (const tag of [gzipTag, brTag, address.etag]) {
      const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"a"}', headers: { 'if-match': tag } })
      assert.equal(response.statusCode, 200, tag)
    }
    address.update({ prompt: 'Changed.' })
    for (const tag of [gzipTag, brTag]) {
      const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"a"}', headers: { 'if-match': tag } })
      assert.equal(response.statusCode, 412, tag)
    }
    // a weak tag never satisfies If-Match (RFC 9110 §13.1.1: strong comparison)
    const weak = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"a"}', headers: { 'if-match': `W/${address.etag}` } })
    assert.equal(weak.statusCode, 412)
    assert.equal(seen.length, 3)
    await app.close()
  })
})

describe('a job\'s progress stream beside @fastify/compress', () => {
  // Its defaults leave both framings alone; a host may well compress every type.
  const configs: Array<[string, object]> = [['defaults', {}], ['every type compressed', { customTypes: /./ }]]
  const cases = ['application/x-ndjson', 'text/event-stream'].flatMap((accept) => configs.map(([config, options]) => ({ accept, config, options })))
  for (const { accept, config, options } of cases) {
    it(`${accept}, ${config}: each event reaches a client that accepts gzip as it comes, not when a compressor flushes`, async () => {
      const { app, stepper } = await slowHost({ heartbeat: 60_000 }, {}, {}, (host) => { host.register(compress, options) })
      const url = await app.listen({ port: 0, host: '127.0.0.1' })
      const handle = await app.inject({ method: 'POST', url: '/slow', payload: '{"steps":2}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })
      let received = ''
      let encoding: string | undefined
      const stream = request(`${url}${handle.json().href}/events`, { headers: { accept, 'accept-encoding': 'gzip, br' } }, (response) => {
        encoding = response.headers['content-encoding']
        response.setEncoding('utf8').on('data', (chunk: string) => { received += chunk })
      })
      stream.end()
      stepper.gates[1]!.open()
      await eventually(() => received.includes('"seq":1'), 'the first event, while the job still works')
      assert.equal(encoding, undefined)
      stepper.gates[2]!.open()
      await eventually(() => received.includes('"status":"completed"'), 'the final event')
      await app.close()
    })
  }
})
