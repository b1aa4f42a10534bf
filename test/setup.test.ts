// `npm run setup:test` (scripts/setup-test.sh) on a machine that lacks some of what the tests need:
// it is run with a PATH of stand-ins, so apt-get and id here only record and answer.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)
const script = join(import.meta.dirname, '../scripts/setup-test.sh')
const bash = '/bin/bash'

interface Outcome { code: number, stdout: string, stderr: string, aptGet: string[] }

describe('npm run setup:test', () => {
  const dirs: string[] = []
  after(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }) })

  /** Runs the script where only `present` tools exist, as user `uid`, with or without apt-get. */
  async function setup (present: string[], uid: number, withAptGet = true, env: Record<string, string> = {}): Promise<Outcome> {
    const bin = mkdtempSync(join(tmpdir(), 'gpt-setup-'))
    dirs.push(bin)
    const log = join(bin, 'apt-get.log')
    const stub = (name: string, body: string): void => {
      writeFileSync(join(bin, name), `#!${bash}\n${body}\n`)
      chmodSync(join(bin, name), 0o755)
    }
    for (const tool of present) stub(tool, 'exit 0')
    stub('id', `echo ${uid}`)
    if (withAptGet) stub('apt-get', `echo "$DEBIAN_FRONTEND $*" >> ${log}`)
    writeFileSync(log, '')
    // No terminal: stdin is /dev/null, as in CI.
    const outcome = await run(bash, [script], { env: { PATH: bin, ...env } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number, stdout: string, stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }))
    return { ...outcome, aptGet: readFileSync(log, 'utf8').split('\n').filter(Boolean) }
  }

  it('installs nothing when everything is there, root or not', async () => {
    const outcome = await setup(['curl', 'jq', 'redis-server', 'chromium'], 1000)
    assert.equal(outcome.code, 0)
    assert.deepEqual(outcome.aptGet, [])
  })

  it('as root, installs exactly what is missing, without questions', async () => {
    const outcome = await setup(['curl', 'jq'], 0)
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.deepEqual(outcome.aptGet, ['noninteractive update -qq', 'noninteractive install -y -qq redis-server chromium'])
  })

  it('not as root, says what is missing and how to install it, and fails', async () => {
    const outcome = await setup(['curl', 'redis-server'], 1000)
    assert.equal(outcome.code, 1)
    assert.deepEqual(outcome.aptGet, [])
    assert.match(outcome.stderr, /missing jq chromium; .*root.*sudo bash scripts\/setup-test\.sh/)
  })

  it('takes the Chromium that CHROMIUM names, as the tests do', async () => {
    const outcome = await setup(['curl', 'jq', 'redis-server'], 1000, true, { CHROMIUM: process.execPath })
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.deepEqual(outcome.aptGet, [])
  })

  it('without apt-get, says what is missing and fails', async () => {
    const outcome = await setup([], 0, false)
    assert.equal(outcome.code, 1)
    assert.match(outcome.stderr, /missing curl jq redis-server chromium; there is no apt-get/)
  })
})
