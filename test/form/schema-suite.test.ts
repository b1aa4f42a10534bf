// scripts/schema-suite.ts (`npm run check:schema-suite`): says what it needs when the suite is not
// where it looks, and decides a suite it is given.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = join(import.meta.dirname, '../..')
const check = (suite: string): Promise<{ code: number, stdout: string, stderr: string }> =>
  run(process.execPath, ['--import', './test/register.js', 'scripts/schema-suite.ts', suite], { cwd: root }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number, stdout: string, stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }))

describe('npm run check:schema-suite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpt-suite-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  for (const [what, suite] of [['a path that does not exist', join(dir, 'absent')], ['a folder without cases', dir]] as const) {
    it(`given ${what}, says where the suite comes from and takes a path, and fails`, async () => {
      const outcome = await check(suite)
      assert.equal(outcome.code, 2)
      assert.equal(outcome.stdout, '')
      assert.match(outcome.stderr, new RegExp(`cases \\(\\*\\.json\\) at ${suite}\\n`))
      assert.match(outcome.stderr, /https:\/\/github\.com\/json-schema-org\/JSON-Schema-Test-Suite/)
      assert.match(outcome.stderr, /npm run check:schema-suite -- \S+\/tests\/draft2020-12/)
    })
  }

  it('decides the cases of a suite folder it is given', async () => {
    const suite = mkdtempSync(join(dir, 'suite-'))
    const group = { description: 'integer', schema: { type: 'integer' }, tests: [{ description: 'one', data: 1, valid: true }, { description: 'a string', data: 'a', valid: false }] }
    writeFileSync(join(suite, 'type.json'), JSON.stringify([group]))
    const decided = await check(suite)
    assert.equal(decided.code, 0, decided.stdout)
    assert.match(decided.stdout, /schemas enforced: 1, .*\nno case decided wrongly/)
    // and a case the suite decides otherwise is reported as wrong
    group.tests[1] = { description: 'a string', data: 'a', valid: true }
    writeFileSync(join(suite, 'type.json'), JSON.stringify([group]))
    const wrong = await check(suite)
    assert.equal(wrong.code, 1)
    assert.match(wrong.stdout, /wrongly decided cases: 1\n {2}type\.json: integer: a string \(expected true\)/)
  })
})
