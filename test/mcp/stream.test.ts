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
      const ok = listeners.open(reply, _request.ip)
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
