// The GET streams' set (src/mcp/stream.ts): a stream its client closes is forgotten, so it holds
// no place of maxStreams and is written no more; a full set refuses the next; close ends them all.
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import { Listeners } from '../../src/mcp/stream.ts'
import { eventually } from './bridge-host.ts'

describe('Listeners', () => {
  it('lets one client hold at most a quarter of maxStreams (at least one), so another still hears', async () => {
    const listeners = new Listeners(8, 60_000)
    assert.equal(listeners.share, 2)
    assert.equal(new Listeners(3, 60_000).share, 1)
    const app = Fastify()
    app.get('/', (request, reply) => listeners.open(reply, request.ip) ? reply : reply.code(405).send())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as { port: number }).port
    const opened: Array<() => void> = []
    const open = (from: string): Promise<number> => new Promise((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false, localAddress: from }, (response) => {
        response.on('error', () => {})
        response.resume()
        opened.push(() => { req.destroy() })
        resolve(response.statusCode ?? 0)
      })
      req.end()
    })
    try {
      assert.deepEqual([await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')], [200, 200, 405])
      assert.deepEqual([await open('127.0.0.2'), await open('127.0.0.2')], [200, 200], 'another client has its own share')
      for (const close of opened) close()
      await eventually(() => listeners.size === 0, 'every stream forgotten')
      assert.equal(await open('127.0.0.1'), 200, 'a client whose streams closed holds none')
      for (const close of opened) close()
    } finally {
      listeners.close()
      await app.close()
    }
  })

  it('counts the streams open, forgets one its client closed, writes each notification to those left, and ends them on close', async () => {
    const listeners = new Listeners(2, 60_000)
    const app = Fastify()
    const opened: boolean[] = []
    app.get('/', (_request, reply) => {
      const ok = listeners.open(reply, _request.ip) !== undefined
      opened.push(ok)
      return ok ? reply : reply.code(405).send()
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as { port: number }).port
    const open = (from = '127.0.0.1'): Promise<{ text: () => string, ended: Promise<unknown>, close: () => void, status: number }> => new Promise((resolve) => {
      let text = ''
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false, localAddress: from }, (response) => {
        response.on('data', (chunk: Buffer) => { text += chunk.toString() })
        response.on('error', () => {})
        const ended = new Promise((resolve) => response.on('close', resolve))
        resolve({ text: () => text, ended, close: () => { req.destroy() }, status: response.statusCode ?? 0 })
      })
      req.end()
    })
    try {
      const a = await open('127.0.0.1')
      const b = await open('127.0.0.2') // one client holds one of two
      assert.equal(listeners.size, 2)
      assert.equal((await open('127.0.0.3')).status, 405, 'full')
      assert.deepEqual(opened, [true, true, false])
      a.close()
      await eventually(() => listeners.size === 1, 'the closed stream forgotten')
      listeners.notify('{"n":1}')
      await eventually(() => b.text().includes('data: {"n":1}'), 'told')
      assert.equal(b.text(), ': \n\nevent: message\ndata: {"n":1}\n\n')
      const c = await open('127.0.0.1')
      assert.equal(c.status, 200, 'room again')
      listeners.close()
      assert.equal(listeners.size, 0)
      await Promise.all([b.ended, c.ended])
    } finally {
      listeners.close()
      await app.close()
    }
  })
})

describe('CallStream: a call\'s progress to a reader that stops reading', () => {
  it('holds at most PROGRESS_HELD bytes of progress beside the stream\'s own buffer, the oldest dropped first, and never the result', async () => {
    const { CallStream, PROGRESS_HELD } = await import('../../src/mcp/stream.ts')
    const { PassThrough } = await import('node:stream')
    const stream = new PassThrough()
    const call = new CallStream(stream)
    const value = (n: number): string => `event: message\ndata: {"progress":${n},"message":"${'x'.repeat(4000)}"}\n\n`
    for (let n = 1; n <= 500; n++) {
      call.progress(value(n))
      assert.ok(call.held <= PROGRESS_HELD, `held ${call.held} after ${n}`)
      assert.ok(stream.writableLength <= stream.writableHighWaterMark + value(n).length, `buffered ${stream.writableLength}`)
    }
    call.end('event: message\ndata: {"result":true}\n\n')
    let text = ''
    for await (const chunk of stream) text += String(chunk)
    const progress = [...text.matchAll(/"progress":(\d+)/g)].map((match) => Number(match[1]))
    assert.ok(text.endsWith('data: {"result":true}\n\n'), 'the result, last')
    assert.ok(progress.length < 40, `most progress dropped: ${progress.length} kept`)
    assert.deepEqual(progress.slice(-Math.floor(PROGRESS_HELD / 4100)), Array.from({ length: Math.floor(PROGRESS_HELD / 4100) }, (_, i) => 500 - Math.floor(PROGRESS_HELD / 4100) + 1 + i), 'the newest kept, in order')
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'in order')
  })

  it('sends what it held once the reader reads again, in order, before later progress', async () => {
    const { CallStream } = await import('../../src/mcp/stream.ts')
    const { PassThrough } = await import('node:stream')
    const stream = new PassThrough()
    const call = new CallStream(stream)
    const value = (n: number): string => `p${n}:${'x'.repeat(2000)};`
    for (let n = 1; n <= 20; n++) call.progress(value(n))
    assert.ok(call.held > 0, 'held while the reader is away')
    const read: string[] = []
    stream.on('data', (chunk: Buffer) => { read.push(String(chunk)) })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(call.held, 0, 'flushed when the stream drained')
    for (let n = 21; n <= 22; n++) call.progress(value(n))
    call.end('r')
    await new Promise((resolve) => stream.on('end', resolve))
    const order = [...read.join('').matchAll(/p(\d+):/g)].map((match) => Number(match[1]))
    assert.deepEqual(order, Array.from({ length: 22 }, (_, i) => i + 1), 'nothing dropped: it never held past its bound')
    assert.ok(read.join('').endsWith('r'))
  })

  it('writes progress through as it comes while the reader keeps up', async () => {
    const { CallStream } = await import('../../src/mcp/stream.ts')
    const { PassThrough } = await import('node:stream')
    const stream = new PassThrough()
    const read: string[] = []
    stream.on('data', (chunk: Buffer) => { read.push(String(chunk)) })
    const call = new CallStream(stream)
    for (let n = 1; n <= 50; n++) {
      call.progress(`p${n};`)
      await new Promise((resolve) => setImmediate(resolve))
    }
    call.end('r')
    await new Promise((resolve) => stream.on('end', resolve))
    assert.equal(read.join(''), `${Array.from({ length: 50 }, (_, i) => `p${i + 1};`).join('')}r`)
    assert.equal(call.held, 0)
  })
})
