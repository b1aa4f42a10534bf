import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { host, noteForm } from '../helpers/host.ts'

/** A host listening on a loopback port, with its port. */
async function listening (options: Partial<GptOptions>): Promise<{ app: FastifyInstance, port: number }> {
  const { app } = await host(options, { forceCloseConnections: true }) // close() never waits on a stalled client
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port }
}

interface Exchange {
  /** Everything the server sent, as latin1 text. */
  received: string
  /** Whether the server ended the connection (the client never does here). */
  closedByServer: boolean
}

/**
 * Sends `head` then each piece after the given pause, and waits until the server closes the
 * connection, `until` matches what it sent, or `signal` (the test's, on a timeout) aborts.
 */
async function exchange (signal: AbortSignal, port: number, head: string, pieces: string[], pause: number, until?: RegExp): Promise<Exchange> {
  const socket: Socket = connect({ port, host: '127.0.0.1', signal })
  await once(socket, 'connect')
  const outcome: Exchange = { received: '', closedByServer: false }
  const done = new Promise<void>((resolve) => {
    socket.on('data', (chunk) => {
      outcome.received += chunk.toString('latin1')
      if (until?.test(outcome.received) === true) resolve()
    })
    socket.on('end', () => { outcome.closedByServer = true; resolve() })
    socket.on('close', () => resolve())
    socket.on('error', () => resolve()) // also the abort of `signal`
  })
  socket.write(head, 'latin1')
  for (const piece of pieces) {
    await sleep(pause)
    if (socket.destroyed || socket.writableEnded) break
    socket.write(piece, 'latin1')
  }
  await done
  socket.destroy()
  return outcome
}

const stalledHead = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"note":"'

const openConnections = (app: FastifyInstance): Promise<number> =>
  new Promise((resolve, reject) => app.server.getConnections((error, count) => error ? reject(error) : resolve(count)))

describe('§5.2 (1), §7.4 bodyTimeout: a body that does not arrive in time is rejected', () => {
  it('answers each of 20 stalled bodies with the bare 204 and closes its connection', { timeout: 30_000 }, async (t) => {
    const { app, port } = await listening({ bodyTimeout: 100 })
    try {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => exchange(t.signal, port, stalledHead, [], 0)))
      for (const { received, closedByServer } of outcomes) {
        const [head, body] = received.split('\r\n\r\n')
        const lines = (head ?? '').split('\r\n')
        assert.equal(lines[0], 'HTTP/1.1 204 No Content')
        assert.ok(lines.some((line) => /^connection: close$/i.test(line)), head)
        assert.equal(body, '')
        assert.ok(closedByServer, 'the server ended the connection')
      }
      assert.equal(await openConnections(app), 0)
    } finally {
      await app.close()
    }
  })

  it('answers stalled bodies that start at other times, and in waves after the last was answered', { timeout: 30_000 }, async (t) => {
    // One timer serves every body being read: it must be armed again for later deadlines, and
    // again once every earlier body has been answered.
    const { app, port } = await listening({ bodyTimeout: 50 })
    try {
      for (let wave = 0; wave < 3; wave++) {
        const outcomes = await Promise.all(Array.from({ length: 5 }, async (_, i) => {
          await sleep(i * 20)
          return exchange(t.signal, port, stalledHead, [], 0)
        }))
        for (const { received, closedByServer } of outcomes) {
          assert.match(received, /^HTTP\/1\.1 204 No Content\r\n/)
          assert.ok(closedByServer, 'the server ended the connection')
        }
      }
    } finally {
      await app.close()
    }
  })

  it('takes the deadline from the start of the body: a trickle that never pauses long is still cut off', { timeout: 30_000 }, async (t) => {
    const { app, port } = await listening({ bodyTimeout: 200 })
    try {
      const trickle = Array.from({ length: 60 }, () => 'x')
      const { received, closedByServer } = await exchange(t.signal, port, stalledHead, trickle, 20)
      assert.match(received, /^HTTP\/1\.1 204 No Content\r\n/)
      assert.match(received, /\r\nconnection: close\r\n/i)
      assert.ok(closedByServer)
    } finally {
      await app.close()
    }
  })

  it('with explain, answers 422 problem+json, and closes the connection too', { timeout: 30_000 }, async (t) => {
    const { app, port } = await listening({ bodyTimeout: 100, explain: true })
    try {
      const { received, closedByServer } = await exchange(t.signal, port, stalledHead, [], 0)
      const [head = '', body = ''] = received.split('\r\n\r\n')
      assert.match(head, /^HTTP\/1\.1 422 /)
      assert.match(head, /\r\nconnection: close(\r\n|$)/i)
      assert.match(JSON.parse(body).detail, /bodyTimeout/)
      assert.ok(closedByServer)
    } finally {
      await app.close()
    }
  })

  it('accepts a body sent slowly in pieces that is complete in time, and keeps the connection', { timeout: 30_000 }, async (t) => {
    const { app, port } = await listening({})
    try {
      const body = '{"note":"slow but sure"}'
      const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
      const pieces = body.match(/.{1,4}/g) ?? []
      const { received, closedByServer } = await exchange(t.signal, port, head, pieces, 10, /\r\n\r\n\{"ok":true\}$/)
      assert.match(received, /^HTTP\/1\.1 200 OK\r\n/)
      assert.match(received, /\r\nConnection: keep-alive\r\n/)
      assert.ok(!closedByServer)
    } finally {
      await app.close()
    }
  })

  it('keeps each read\'s own deadline, whatever order reads start and end in (stalled, slow and quick bodies mixed)', { timeout: 60_000 }, async (t) => {
    // The deadlines are a list in order of arrival: reads that end take themselves out from its
    // start, middle or end, and the ones left must still expire, each at its own time.
    const { app, port } = await listening({ bodyTimeout: 200 })
    const body = '{"note":"in time"}'
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const kind = fc.constantFrom('stalled', 'slow', 'quick')
    try {
      await fc.assert(fc.asyncProperty(fc.array(fc.tuple(kind, fc.integer({ min: 0, max: 80 })), { minLength: 2, maxLength: 8 }), async (reads) => {
        const outcomes = await Promise.all(reads.map(async ([what, start]) => {
          await sleep(start)
          if (what === 'stalled') return { what, ...await exchange(t.signal, port, stalledHead, [], 0) }
          const pieces = what === 'slow' ? body.match(/.{1,6}/g) ?? [] : [body]
          return { what, ...await exchange(t.signal, port, head, pieces, what === 'slow' ? 30 : 0, /\r\n\r\n\{"ok":true\}$/) }
        }))
        for (const { what, received, closedByServer } of outcomes) {
          if (what === 'stalled') {
            assert.match(received, /^HTTP\/1\.1 204 No Content\r\n/)
            assert.ok(closedByServer)
          } else {
            assert.match(received, /^HTTP\/1\.1 200 OK\r\n/, what)
            assert.ok(!closedByServer)
          }
        }
      }), { numRuns: 12 })
    } finally {
      await app.close()
    }
  })

  it('closes the connection whatever answers the stalled act (here a host\'s preHandler hook, with a 403)', { timeout: 30_000 }, async (t) => {
    const app = Fastify({ forceCloseConnections: true })
    app.addHook('preHandler', async (_request, reply) => reply.code(403).send())
    await app.register(gpt, { form: noteForm, act: () => null, rateLimit: false, bodyTimeout: 100 })
    await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const { received, closedByServer } = await exchange(t.signal, (app.server.address() as { port: number }).port, stalledHead, [], 0)
      assert.match(received, /^HTTP\/1\.1 403 /)
      assert.match(received, /\r\nconnection: close\r\n/i)
      assert.ok(closedByServer)
    } finally {
      await app.close()
    }
  })

  it('refuses a stalled body as a body, before its If-Match is read: the bare 204, closed', { timeout: 30_000 }, async (t) => {
    const { app, port } = await listening({ bodyTimeout: 100, ifMatch: true })
    try {
      const head = stalledHead.replace('Host: x\r\n', 'Host: x\r\nIf-Match: "stale"\r\n')
      const { received, closedByServer } = await exchange(t.signal, port, head, [], 0)
      assert.match(received, /^HTTP\/1\.1 204 /)
      assert.match(received, /\r\nconnection: close\r\n/i)
      assert.ok(closedByServer)
    } finally {
      await app.close()
    }
  })

  it('leaves no timer behind on any other outcome', { timeout: 30_000 }, async (t) => {
    const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
    const { app, port } = await listening({ bodyTimeout: 60_000, bodyLimit: 64 })
    try {
      const before = timers()
      const post = (body: string): string => `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
      await exchange(t.signal, port, post('{"note":"a"}'), [], 0) // accepted
      await exchange(t.signal, port, post('{"note":1}'), [], 0) // rejected by the form
      await exchange(t.signal, port, post(`{"note":"${'x'.repeat(80)}"}`), [], 0) // over the limit, declared
      await exchange(t.signal, port, 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n50\r\n' + 'x'.repeat(80) + '\r\n0\r\n\r\n', [], 0) // over the limit, read
      const gone = connect({ port, host: '127.0.0.1', signal: t.signal })
      await once(gone, 'connect')
      gone.write(stalledHead)
      await sleep(20)
      gone.destroy() // went away mid-body
      while (await openConnections(app) > 0) await sleep(5)
      assert.equal(timers(), before)
    } finally {
      await app.close()
    }
  })
})
