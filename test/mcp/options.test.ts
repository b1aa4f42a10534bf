// The bridge's options, checked at registration with named errors: a JavaScript host may pass a
// string where a list goes (a host list split into letters would allow anything), or misspell one.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import mcp, { type McpOptions } from '../../src/mcp/index.ts'

async function registering (options: Record<string, unknown>): Promise<unknown> {
  const app = Fastify()
  try {
    await app.register(gpt, { prefix: '/notes', form: { type: 'string' }, act: (note) => note, rateLimit: false })
    await app.register(mcp, options as McpOptions)
    await app.ready()
    return undefined
  } catch (error) {
    return error
  } finally {
    await app.close()
  }
}

describe('the bridge\'s options', () => {
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ allowedHost: ['a.example'] }, /"allowedHost" is not an option/],
    [{ allowedHosts: 'localhost' }, /"allowedHosts" must be a list of host names, or false/],
    [{ allowedHosts: [''] }, /"allowedHosts"/],
    [{ allowedHosts: true }, /"allowedHosts"/],
    [{ allowedOrigins: 'https://a.example' }, /"allowedOrigins" must be a list of origins/],
    [{ toolName: 'notes' }, /"toolName" must be a function/],
    [{ addresses: ['/notes'] }, /"addresses" must be a function/],
    [{ serverInfo: { name: 'x' } }, /"serverInfo" must be \{ name, version \}/],
    [{ serverInfo: null }, /"serverInfo"/],
    [{ instructions: 1 }, /"instructions" must be a string/],
    [{ rateLimit: 600 }, /"rateLimit" must be @fastify\/rate-limit options, or false/],
    [{ rateLimit: null }, /"rateLimit"/]
  ]
  for (const [options, message] of bad) {
    it(`refuses ${JSON.stringify(options)} with GPT_ERR_OPTION_INVALID`, async () => {
      const error = await registering(options) as { code?: string, message?: string } | undefined
      assert.equal(error?.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(String(error?.message), message)
    })
  }

  it('takes each of them well formed', async () => {
    assert.equal(await registering({
      serverInfo: { name: 'host', version: '2.0.0' },
      instructions: 'Act on the notes.',
      toolName: (path: string) => `gpt_${path.slice(1)}`,
      addresses: () => true,
      allowedHosts: ['notes.example'],
      allowedOrigins: ['https://notes.example'],
      rateLimit: false
    }), undefined)
    assert.equal(await registering({ allowedHosts: false, rateLimit: { max: 5, timeWindow: 1000 } }), undefined)
  })

  it('refuses a GET stream naming a protocol revision not spoken here, as a POST', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(mcp)
    const answer = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' } })
    assert.equal(answer.statusCode, 400)
    assert.match(answer.json().error.message, /Unsupported protocol version: 1999-01-01/)
  })
})
