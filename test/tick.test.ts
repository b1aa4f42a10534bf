// One process.nextTick object is kept alive from the moment the package loads (src/tick.ts), so
// that a full collection never clears its maps and nextTick's literal stays on V8's fast path.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { keepTickObject, keptTickObject } from '../src/tick.ts'
import '../src/index.ts'

describe('the kept tick object', () => {
  it('is taken when the package loads, once, and is a tick object', () => {
    const kept = keptTickObject() as Record<string | symbol, unknown> | undefined
    assert.ok(kept !== undefined)
    assert.equal(typeof kept['callback'], 'function')
    assert.deepEqual(Object.getOwnPropertySymbols(kept).map((symbol) => symbol.description), ['async_id_symbol', 'trigger_async_id_symbol'])
    keepTickObject()
    assert.equal(keptTickObject(), kept)
  })
})
