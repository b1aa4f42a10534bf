// Every GPT_ERR_* of src/errors.ts against the README's errors table: the same codes, each error
// of the base class the table names, as fastify's own errors are checked against its docs.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import * as errors from '../src/errors.ts'

const BASES: Record<string, ErrorConstructor> = { Error, TypeError, RangeError }

/** The rows of the README's errors table: each code and the name of its base class. */
function table (): Map<string, string> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = readme.split(/^## /m).find((part) => part.startsWith('Errors at registration\n'))
  assert.ok(section !== undefined, 'the README has a section "Errors at registration"')
  const rows = new Map<string, string>()
  for (const [, code = '', base = ''] of section.matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)) {
    assert.ok(!rows.has(code), `${code} is in the table once`)
    rows.set(code, base)
  }
  return rows
}

const rows = table()
const exported = Object.entries(errors) as Array<[string, new (...args: unknown[]) => Error & { code: string }]>

describe('the errors and the README', () => {
  it('lists every code src/errors.ts exports, and only those', () => {
    assert.ok(exported.length > 0)
    assert.deepEqual([...rows.keys()].sort(), exported.map(([name]) => name).sort())
  })

  for (const [name, Constructor] of exported) {
    it(`${name} has its own name as its code and the base class the table gives`, () => {
      const base = BASES[rows.get(name) ?? '']
      assert.ok(base !== undefined, `the table gives ${name} a base, one of ${Object.keys(BASES).join(', ')}`)
      assert.equal(Object.getPrototypeOf(Constructor.prototype), base.prototype)
      const error = new Constructor('/notes', 'what is wrong', { cause: undefined })
      assert.equal(error.code, name)
      assert.ok(error instanceof Constructor)
      assert.ok(error instanceof base)
      for (const other of Object.values(BASES)) if (other !== Error && other !== base) assert.ok(!(error instanceof other), `${name} is no ${other.name}`)
    })
  }
})
