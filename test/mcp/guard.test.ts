// The DNS-rebinding check (src/mcp/guard.ts) as a function of the request's local address, Host
// and Origin: what a browser lured to a rebound name sends, and what a real client sends.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { allowedOf, rebound } from '../../src/mcp/guard.ts'

describe('rebound', () => {
  const loopback = allowedOf(undefined, undefined)

  it('checks a request that came in on a loopback address, IPv4, IPv6 or IPv4-mapped', () => {
    for (const local of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      assert.equal(rebound(loopback, local, 'evil.example', undefined), 'Invalid Host header', local)
      assert.equal(rebound(loopback, local, 'localhost:3000', undefined), undefined, local)
    }
  })

  it('leaves a request on another address alone unless allowedHosts is given', () => {
    for (const local of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', undefined]) {
      assert.equal(rebound(loopback, local, 'evil.example', 'http://evil.example'), undefined, String(local))
    }
    const named = allowedOf(['api.example'], undefined)
    assert.equal(rebound(named, '10.0.0.5', 'evil.example', undefined), 'Invalid Host header', 'given: every request')
    assert.equal(rebound(named, '10.0.0.5', 'API.EXAMPLE:443', undefined), undefined)
    assert.equal(rebound(allowedOf(false, ['https://x.example']), '127.0.0.1', 'evil.example', 'http://evil.example'), undefined, 'false: no check')
  })

  it('reads a Host\'s name without its port, brackets and all, in any case', () => {
    const cases: Array<[string | undefined, boolean]> = [
      ['localhost', true], ['LocalHost:80', true], ['127.0.0.1:1', true], ['[::1]', true], ['[::1]:8080', true],
      [undefined, false], ['', false], ['[::1', false], ['::1', false], ['localhost.', false], ['localhost@evil.example', false],
      ['127.0.0.2', false], ['evil.example:localhost', false], ['[::ffff:127.0.0.1]', false]
    ]
    for (const [host, allowed] of cases) assert.equal(rebound(loopback, '127.0.0.1', host, undefined) === undefined, allowed, String(host))
  })

  it('takes an Origin of a loopback or allowed name over http(s), or one of allowedOrigins exactly', () => {
    const allowed = allowedOf(['api.example'], ['https://app.example', 'null'])
    const cases: Array<[string, boolean]> = [
      ['http://localhost', true], ['https://127.0.0.1:8443', true], ['http://[::1]', true], ['https://api.example', true],
      ['https://app.example', true], ['null', true],
      ['https://app.example:444', false], ['http://evil.example', false], ['ws://localhost', false], ['file://localhost/x', false],
      ['http://localhost:80@evil.example', false], ['http://evil.example#localhost', false], ['localhost', false], ['', false]
    ]
    for (const [origin, ok] of cases) {
      assert.equal(rebound(allowed, '127.0.0.1', 'localhost', origin), ok ? undefined : 'Invalid Origin header', origin)
    }
  })
})
describe('an Origin on a request that came in on a public address', () => {
  it('must be the host\'s own, or one allowed', () => {
    const checked = allowedOf(undefined, ['https://app.example'])
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', undefined), undefined, 'no Origin: not a browser')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://api.example'), undefined, 'its own origin')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example:8443', 'https://api.example:8443'), undefined, 'with its port')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://app.example'), undefined, 'allowed')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://evil.example'), 'Invalid Origin header')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://api.example:8443'), 'Invalid Origin header', 'another port')
    assert.equal(rebound(checked, '10.0.0.5', undefined, 'https://api.example'), 'Invalid Origin header', 'no Host to compare')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'null'), 'Invalid Origin header', 'an opaque origin')
  })
})
