// `fastify-gpt check <url>` over real HTTP on 127.0.0.1: main() in-process, and the bin as users run it.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../src/index.ts'
import { main, USAGE } from '../src/cli/check.ts'
import { checkAddress } from '../src/testing.ts'
import { noteBoard, poll } from '../example/addresses.js'
import { faultyHost } from './helpers/faulty.ts'
import { freePort } from './helpers/port.ts'

const run = promisify(execFile)

/** Runs main and collects what it writes. */
async function cli (...argv: string[]): Promise<{ status: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const status = await main(argv, { out: (text: string) => { out += text }, err: (text: string) => { err += text } })
  return { status, out, err }
}

describe('fastify-gpt check <url>', () => {
  let example: FastifyInstance
  let base = ''
  let faulty: FastifyInstance
  let faultyUrl = ''
  let explaining: FastifyInstance
  let explainingUrl = ''

  before(async () => {
    example = Fastify()
    await example.register(gpt, noteBoard() as unknown as GptOptions)
    await example.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    base = await example.listen({ port: 0, host: '127.0.0.1' })
    ;({ app: faulty } = await faultyHost('duplicates'))
    faultyUrl = await faulty.listen({ port: 0, host: '127.0.0.1' })
    ;({ app: explaining } = await faultyHost('explains'))
    explainingUrl = await explaining.listen({ port: 0, host: '127.0.0.1' })
  })
  after(async () => { await Promise.all([example.close(), faulty.close(), explaining.close()]) })

  it('passes the example host over HTTP, grouped by section, and exits 0', async () => {
    const { status, out } = await cli(`${base}/`)
    assert.equal(status, 0)
    assert.match(out, /^fastify-gpt check http:\/\/127\.0\.0\.1:\d+\/ \(draft-ferguson-gpt-00\)\n/)
    const sections = [...out.matchAll(/^§(\S+)/gm)].map((m) => m[1])
    assert.deepEqual(sections, ['3.1', '3.2', '3.3', '4', '5.1', '5.2', '5.3', '6'])
    assert.match(out, /0 failed \(0 MUST\)/)
    assert.doesNotMatch(out, /^Failed:/m)
    // the size checks crossed the wire: 10 MiB announced, and sent chunked
    assert.match(out, /pass {2}MUST {4}5\.2-size-declared/)
    assert.match(out, /pass {2}MUST {4}5\.2-size-chunked/)
  })

  it('prints JSON with --json, and sends acts with --acts', async () => {
    const { status, out } = await cli(`${base}/poll`, '--json', '--acts', '6', '--max-requests', '80', '--seed', '3', '--timeout', '5000')
    assert.equal(status, 0)
    const report = JSON.parse(out)
    assert.equal(report.ok, true)
    assert.equal(report.results.find((r: { id: string }) => r.id === '6-actor').outcome, 'pass')
    const after = await fetch(`${base}/poll`, { method: 'POST', body: '{"choice":"tabs"}' })
    const tally = await after.json() as { tabs: number, spaces: number }
    assert.equal(tally.tabs + tally.spaces, 7) // the six acts, and this one
  })

  it('fails an address that breaks a MUST: exit 1, failures first with what was sent and what came back', async () => {
    const { status, out } = await cli(faultyUrl)
    assert.equal(status, 1)
    const failures = out.slice(out.indexOf('Failed:'), out.indexOf('§3.1'))
    assert.match(failures, /fail {2}MUST {4}5\.2-duplicate: /)
    assert.match(failures, /sent: POST content-type: application\/json {2}\{"note":/)
    assert.match(failures, /got: {2}200 /)
    assert.match(out, /not conformant\n$/)
  })

  it('counts a SHOULD only with --strict', async () => {
    const lenient = await cli(explainingUrl)
    assert.equal(lenient.status, 0)
    assert.match(lenient.out, /fail {2}SHOULD {2}5\.3-bare-204/)
    const strict = await cli(explainingUrl, '--strict', '--interval', '1', '--max-wait', '1', '--body-size', '100000')
    assert.equal(strict.status, 1)
    assert.match(strict.out, /not conformant \(strict: SHOULD counts\)/)
  })

  it('says in one line that it could not reach an address, and exits 2', async () => {
    const { status, out, err } = await cli(`http://127.0.0.1:${await freePort()}/`)
    assert.equal(status, 2)
    assert.equal(out, '')
    assert.match(err, /^fastify-gpt check: could not reach the address \(could not connect: .*ECONNREFUSED.*\)\n$/)
  })

  it('answers usage errors with exit 2 and the usage', async () => {
    for (const argv of [[], ['a', 'b'], ['not a url'], ['ftp://127.0.0.1/'], [base, '--acts', 'many'], [base, '--what']]) {
      const { status, err, out } = await cli(...argv)
      assert.equal(status, 2, argv.join(' '))
      assert.notEqual(err, '')
      assert.equal(out, '')
    }
    assert.deepEqual(await cli('--help'), { status: 0, out: USAGE, err: '' })
  })

  it('checkAddress takes a URL too', async () => {
    const report = await checkAddress(`${base}/poll`)
    assert.equal(report.ok, true)
    assert.equal(report.target, `${base}/poll`)
  })

  it('the bin dispatches check to the built CLI and refuses an unknown command', async () => {
    const { stdout } = await run(process.execPath, ['bin/fastify-gpt.js', 'check', `${base}/poll`])
    assert.match(stdout, /conformant as far as checked/)
    await assert.rejects(run(process.execPath, ['bin/fastify-gpt.js', 'check', faultyUrl]), (error: { code: number }) => error.code === 1)
    await assert.rejects(run(process.execPath, ['bin/fastify-gpt.js', 'nope']), (error: { code: number, stderr: string }) =>
      error.code === 2 && /usage: fastify-gpt <check \| lint>/.test(error.stderr))
  })
})
