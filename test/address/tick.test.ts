// One process.nextTick object is kept alive once a host asks (keepTickObject, src/address/tick.ts), so
// that a full collection never clears its maps and nextTick's literal stays on V8's fast path;
// importing the package installs nothing.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { keptTickObject } from '../../src/address/tick.ts'
import { keepTickObject } from '../../src/index.ts'

const fixture = fileURLToPath(new URL('../fixtures/tick-gc.ts', import.meta.url))
const loader = new URL('../register.js', import.meta.url).href
// The child must not think itself a test file, nor run under coverage, which keeps V8's feedback
// otherwise (Node passes NODE_V8_COVERAGE on to children unless it is given, so it is given empty).
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT')), NODE_V8_COVERAGE: '' }

/** The states of nextTick's four object-literal define sites after collections with no tick alive. */
function statesAfterCollections (keep: boolean): string[] {
  const printed = execFileSync(process.execPath, ['--expose-gc', '--allow-natives-syntax', '--import', loader, fixture, keep ? 'keep' : 'bare'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env })
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] as string)
}

describe('the kept tick object', () => {
  it('is taken when the host asks (never when the package loads), once, and is a tick object', () => {
    assert.equal(keptTickObject(), undefined, 'importing the package hooked nothing')
    keepTickObject()
    const kept = keptTickObject() as Record<string | symbol, unknown> | undefined
    assert.ok(kept !== undefined)
    assert.equal(typeof kept['callback'], 'function')
    assert.deepEqual(Object.getOwnPropertySymbols(kept).map((symbol) => symbol.description), ['async_id_symbol', 'trigger_async_id_symbol'])
    keepTickObject()
    assert.equal(keptTickObject(), kept)
  })

  it('keeps nextTick\'s literal monomorphic through full collections, where Node 20 turns it megamorphic', () => {
    assert.deepEqual(statesAfterCollections(true), ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC'])
    // Without the remedy the cost is there to see, on the Node this package is tested on.
    if (process.versions.node.startsWith('20.')) {
      assert.deepEqual(statesAfterCollections(false), ['MONOMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC'])
    }
  })
})
