// The GET streams' set (src/mcp/stream.ts): a stream its client closes is forgotten, so it holds
// no place of maxStreams and is written no more; a full set refuses the next; close ends them all.
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import { Listeners } from '../../src/mcp/stream.ts'
import { eventually } from './bridge-host.ts'

describe('Listeners', () => {
  it('counts the streams open, forgets one its client closed, writes each notification to those left, and ends them on close', async () => {
    const listeners = new Listeners(2, 60_000)
    const app = Fastify()
    const opened: boolean[] = []
    app.get('/', (_request, reply) => {
      const ok = listeners.open(reply)
      opened.push(ok)
      return ok ? reply : reply.code(405).send()
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const port = (app.server.address() as { port: number }).port
    const open = (): Promise<{ text: () => string, ended: Promise<unknown>, close: () => void, status: number }> => new Promise((resolve) => {
      let text = ''
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
        response.on('data', (chunk: Buffer) => { text += chunk.toString() })
        response.on('error', () => {})
        const ended = new Promise((resolve) => response.on('close', resolve))
        resolve({ text: () => text, ended, close: () => { req.destroy() }, status: response.statusCode ?? 0 })
      })
      req.end()
    })
    try {
      const a = await open()
      const b = await open()
      assert.equal(listeners.size, 2)
      assert.equal((await open()).status, 405, 'full')
      assert.deepEqual(opened, [true, true, false])
      a.close()
      await eventually(() => listeners.size === 1, 'the closed stream forgotten')
      listeners.notify('{"n":1}')
      await eventually(() => b.text().includes('data: {"n":1}'), 'told')
      assert.equal(b.text(), ': \n\nevent: message\ndata: {"n":1}\n\n')
      const c = await open()
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
