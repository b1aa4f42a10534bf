// The page's scripts are written as browser JavaScript (src/page/*.browser.js) and served from the
// string modules scripts/build-page-scripts.ts generates: those must be current, and must hold the
// browser file's bytes exactly, since the bytes served are the bytes the CSP hashes.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { PAGE_SCRIPTS, generate } from '../../scripts/build-page-scripts.ts'

const page = new URL('../../src/page/', import.meta.url)

describe('the page\'s scripts', () => {
  for (const script of PAGE_SCRIPTS) {
    it(`${script.target} is ${script.source}, generated`, () => {
      assert.equal(readFileSync(new URL(script.target, page), 'utf8'), generate(script))
    })

    it(`${script.name} is ${script.source} from 'use strict' on, byte for byte`, async () => {
      const text = readFileSync(new URL(script.source, page), 'utf8')
      const served: unknown = (await import(new URL(script.target, page).href))[script.name]
      assert.equal(served, '\n' + text.slice(text.indexOf('\'use strict\'\n')))
    })
  }

  const script = PAGE_SCRIPTS[0]
  for (const [what, text, why] of [
    ['a backtick', '// x\n\'use strict\'\nconst a = `b`\n', /holds "`"/],
    ['an interpolation', '// x\n\'use strict\'\nconst a = \'$' + '{b}\'\n', /holds "\$\{"/],
    ['a carriage return', '// x\n\'use strict\'\r\n', /holds "\\r"/],
    ['a final backslash', '// x\n\'use strict\'\n\\', /holds "\\\\"/],
    ['no header', '\'use strict\'\n', /must open with \/\/ lines/]
  ] as const) {
    it(`refuses a browser file with ${what}`, () => {
      assert.ok(script)
      assert.throws(() => generate(script, text), why)
    })
  }
})
