// `fastify-gpt check <url>` over real HTTP on 127.0.0.1: main() in-process, and the bin as users run it.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { main, USAGE } from '../../src/cli/check.ts'
import { checkAddress, type Report } from '../../src/check/testing.ts'
import { noteBoard, poll } from '../../example/addresses.js'
import { faultyHost } from '../helpers/faulty.ts'
import { freePort } from '../helpers/port.ts'

const run = promisify(execFile)

/** Runs main and collects what it writes. */
async function cli (...argv: string[]): Promise<{ status: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const status = await main(argv, { out: (text: string) => { out += text }, err: (text: string) => { err += text } })
  return { status, out, err }
}

// What these runs are about is not the judge's time: generous, so that a loaded machine cannot
// turn a verdict into "could not check everything" (exit 2).
const judged = (...argv: string[]): ReturnType<typeof cli> => cli(...argv, '--judge-timeout', '60000')

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
    const { status, out } = await judged(`${base}/`)
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
    const { status, out } = await judged(`${base}/poll`, '--json', '--acts', '6', '--max-requests', '80', '--seed', '3', '--timeout', '5000')
    assert.equal(status, 0)
    const report = JSON.parse(out)
    assert.equal(report.ok, true)
    assert.equal(report.results.find((r: { id: string }) => r.id === '6-actor').outcome, 'pass')
    const after = await fetch(`${base}/poll`, { method: 'POST', body: '{"choice":"tabs"}' })
    const tally = await after.json() as { tabs: number, spaces: number }
    assert.equal(tally.tabs + tally.spaces, 7) // the six acts, and this one
  })

  it('fails an address that breaks a MUST: exit 1, failures first with what was sent and what came back', async () => {
    const { status, out } = await judged(faultyUrl)
    assert.equal(status, 1)
    const failures = out.slice(out.indexOf('Failed:'), out.indexOf('§3.1'))
    assert.match(failures, /fail {2}MUST {4}5\.2-duplicate: /)
    assert.match(failures, /sent: POST content-type: application\/json {2}\{"note":/)
    assert.match(failures, /got: {2}200 /)
    assert.match(out, /not conformant\n$/)
  })

  it('counts a SHOULD only with --strict', async () => {
    const lenient = await judged(explainingUrl)
    assert.equal(lenient.status, 0)
    assert.match(lenient.out, /fail {2}SHOULD {2}5\.3-bare-204/)
    const strict = await judged(explainingUrl, '--strict', '--interval', '1', '--max-wait', '1', '--body-size', '100000')
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

/** The built CLI as a user runs it: a child process, its status, stdout and stderr. */
function bin (...args: string[]): Promise<{ code: number | null, out: string, err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/fastify-gpt.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

const formFile = (text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'cli-')), 'form.json')
  writeFileSync(path, text)
  return path
}

describe('the command line, as a user runs it', () => {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }

  it('--help exits 0 with the usage, --version prints the version, for the bin and each command', async () => {
    const top = await bin('--help')
    assert.equal(top.code, 0)
    assert.match(top.out, /^usage: fastify-gpt <check \| lint>/)
    assert.match(top.out, /Exit status: 0 .*; 1 .*; 2 /)
    for (const args of [['--version'], ['check', '--version'], ['lint', '--version']]) {
      assert.deepEqual(await bin(...args), { code: 0, out: `fastify-gpt ${version}\n`, err: '' }, args.join(' '))
    }
    const check = await bin('check', '--help')
    assert.equal(check.code, 0)
    assert.match(check.out, /--header 'NAME: V'/)
    const lint = await bin('lint', '-h')
    assert.equal(lint.code, 0)
    assert.match(lint.out, /^usage: fastify-gpt lint/)
  })

  it('--version in-process prints the version of package.json', async () => {
    assert.deepEqual(await cli('--version'), { status: 0, out: `fastify-gpt ${version}\n`, err: '' })
  })

  it('usage errors exit 2, saying what is wrong in the first line', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^usage: fastify-gpt/],
      [['nope'], /^fastify-gpt: no command "nope"/],
      [['check'], /^fastify-gpt check: give one URL\n/],
      [['check', 'http://127.0.0.1:1/', '--acts=many'], /^fastify-gpt check: --acts takes a non-negative integer, not "many"\n/],
      [['check', 'http://127.0.0.1:1/', '--timeout', '0'], /^fastify-gpt check: --timeout takes a positive integer/],
      [['check', 'http://127.0.0.1:1/', '--header', 'no colon'], /^fastify-gpt check: --header takes 'name: value'/],
      [['check', 'ftp://127.0.0.1/'], /^fastify-gpt check: not an http\(s\) URL/],
      [['lint'], /^fastify-gpt lint: a form file or URL is required\n/],
      [['lint', 'a.json', '--decoder=gpt-9'], /^fastify-gpt lint: --decoder takes one of openai-strict/],
      [['lint', 'a.json', '--what'], /^fastify-gpt lint: Unknown option '--what'/]
    ]
    for (const [args, first] of cases) {
      const run = await bin(...args)
      assert.equal(run.code, 2, args.join(' '))
      assert.equal(run.out, '', args.join(' '))
      assert.match(run.err, first, args.join(' '))
      assert.doesNotMatch(run.err, /\n\s+at /)
    }
  })

  it('check: an address it cannot reach is one line and exit 2', async () => {
    const run = await bin('check', `http://127.0.0.1:${await freePort()}/`)
    assert.deepEqual([run.code, run.out], [2, ''])
    assert.match(run.err, /^fastify-gpt check: could not reach the address \(could not connect: [^\n]*ECONNREFUSED[^\n]*\)\n$/)
  })

  it('lint agrees with registration: what the plugin refuses at boot is an error with its code and message (exit 1)', async () => {
    const cases: [object, string, RegExp][] = [
      [{ type: 'string', format: 'hostname' }, 'GPT_ERR_FORM_UNKNOWN_FORMAT', /hostname/],
      [{ type: 'string', maxLenght: 3 }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /did you mean "maxLength"\?/],
      [{ type: 'strin' }, 'GPT_ERR_FORM_INVALID', /fastify-gpt address .*form\.json/]
    ]
    for (const [form, code, message] of cases) {
      const path = formFile(JSON.stringify(form))
      let refused: Error & { code?: string } | undefined
      const app = Fastify()
      try {
        await app.register(gpt, { form, act: () => ({}), prompt: 'x', lint: false } as unknown as GptOptions)
        await app.ready()
      } catch (error) {
        refused = error as Error & { code?: string }
      } finally {
        await app.close()
      }
      assert.equal(refused?.code, code, 'the plugin refuses it at registration')
      const run = await bin('lint', path)
      assert.equal(run.code, 1, run.out + run.err)
      assert.match(run.out, new RegExp(`^\\(form\\)\\n {2}error {3}${code} {2}`))
      assert.match(run.out, message)
      // the same message, the address named by the file instead of the path
      assert.ok(run.out.includes((refused?.message ?? '').replace('address /:', `address ${path}:`)), run.out)
      assert.match(run.out, /: 1 error, \d+ warnings?, \d+ notes?\n$/)
      assert.doesNotMatch(run.err, /TypeError|\n\s+at /)
    }
  })

  it('lint: what it cannot read, or what is no JSON Schema object, is one line and exit 2', async () => {
    const cases: [string, RegExp][] = [
      ['/nonexistent/form.json', /^fastify-gpt lint: cannot read \/nonexistent\/form\.json: ENOENT/],
      [formFile('{"type": '), /^fastify-gpt lint: cannot read .*form\.json: .*JSON/],
      [formFile('42'), /^fastify-gpt lint: .*form\.json is not a JSON Schema object \(it is a number\)\n$/],
      [formFile('[{"type":"integer"}]'), /is not a JSON Schema object \(it is an array\)/]
    ]
    for (const [path, line] of cases) {
      const run = await bin('lint', path)
      assert.deepEqual([run.code, run.out], [2, ''], path)
      assert.match(run.err, line)
      assert.equal(run.err.split('\n').length, 2, 'one line')
    }
  })

  it('lint and check take --name=value alike', async () => {
    const run = await bin('lint', formFile('{"type":"integer","minimum":0,"maximum":9}'), '--decoder=xgrammar', '--body-limit=100')
    assert.equal(run.code, 0, run.err)
    assert.match(run.out, /: 0 errors, \d+ warnings?, \d+ notes?\n$/)
  })
})

describe('auth for acts only: --header goes with acts, never with the arrival (draft §3.1)', () => {
  /** A host whose address takes acts only with the token; `all` protects GET too (the wrong setup). */
  async function guarded (all: boolean): Promise<{ app: FastifyInstance, url: string, seen: (string | undefined)[] }> {
    const seen: (string | undefined)[] = []
    const app = Fastify()
    await app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (request.method === 'GET') seen.push(request.headers.authorization)
        if ((all || request.method === 'POST') && request.headers.authorization !== 'Bearer secret') return reply.code(401).send()
      })
      await scope.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    })
    return { app, url: `${await app.listen({ port: 0, host: '127.0.0.1' })}/poll`, seen }
  }

  it('acts behind auth are checked with the header, and GETs never carry it', async (t) => {
    const { app, url, seen } = await guarded(false)
    t.after(() => app.close())
    const run = await bin('check', url, '--acts', '2', '--header', 'Authorization: Bearer secret', '--json')
    assert.equal(run.code, 0, run.out + run.err)
    const report = JSON.parse(run.out) as Report
    assert.equal(report.results.find((r) => r.id === '5.2-admitted')?.outcome, 'pass')
    assert.ok(seen.length > 5 && seen.every((header) => header === undefined), 'no GET carried the header')
    assert.doesNotMatch(run.out, /secret/, 'the header is never shown')
    // without it, the acts are the host's gate's to answer, not the address's (test/check/gate.test.ts)
    const without = await checkAddress(url, { acts: 2 })
    assert.equal(without.results.find((r) => r.id === '5.2-admitted')?.outcome, 'gate')
  })

  it('in-process too: the header, trimmed and its name lower-cased, goes with acts only; a header not "name: value" is a usage error', async (t) => {
    const { app, url, seen } = await guarded(false)
    t.after(() => app.close())
    const run = await judged(url, '--acts', '2', '--header', '  AUTHORIZATION :  Bearer secret  ', '--json')
    assert.equal(run.status, 0, run.out + run.err)
    assert.equal((JSON.parse(run.out) as Report).results.find((r) => r.id === '5.2-admitted')?.outcome, 'pass')
    assert.ok(seen.every((header) => header === undefined), 'no GET carried the header')
    for (const header of ['no colon', ': no name', 'two words: v', 'x: a\u0001b', 'x\u00e9: v']) {
      const refused = await cli(url, '--header', header)
      assert.equal(refused.status, 2, header)
      assert.match(refused.err, /^fastify-gpt check: --header takes 'name: value', not "[^\n]+"\n/, header)
      assert.equal(refused.out, '', header)
    }
  })

  it('auth in front of GET fails 3.1, and the checks of the arrival\'s body are skipped as knock-ons', async (t) => {
    const { app, url } = await guarded(true)
    t.after(() => app.close())
    const report = await checkAddress(url, { headers: { authorization: 'Bearer secret' } })
    const outcome = (id: string): string | undefined => report.results.find((r) => r.id === id)?.outcome
    assert.equal(outcome('3.1-bare-get'), 'fail')
    for (const id of ['3.2-json', '3.2-members', '4-form-valid']) assert.equal(outcome(id), 'skip', id)
    assert.match(report.results.find((r) => r.id === '3.2-members')?.detail ?? '', /answered 401, not 200 \(3\.1\)/)
  })
})

describe('progress', () => {
  it('--verbose says on stderr what it waits for: a 429 waited out', async (t) => {
    let first = true
    const app = Fastify()
    app.addHook('onRequest', async (_, reply) => {
      if (first) {
        first = false
        return reply.code(429).header('retry-after', '2').send()
      }
    })
    await app.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/poll`
    t.after(() => app.close())
    const run = await bin('check', url, '--verbose')
    assert.equal(run.code, 0, run.out + run.err)
    assert.match(run.err, /^fastify-gpt check: rate limited \(429\): waiting 2 s, as Retry-After asks\n/)
    const quiet = await bin('check', url)
    assert.equal(quiet.err, '', 'not a terminal, not verbose: nothing on stderr')
  })
})
