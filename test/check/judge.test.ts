// The checker's independent judge (src/check/judge.ts): judges live at once each judge their own
// form on a thread of their own, and one thread is kept for the next judge once they are done.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Judge } from '../../src/check/judge.ts'

describe('judges at once', () => {
  it('each judges its own form, and the threads they leave serve the judges after them', () => {
    const strings = new Judge({ type: 'string' }, 60_000)
    const integers = new Judge({ type: 'integer', minimum: 0 }, 60_000)
    assert.equal(strings.admits('a')?.valid, true)
    assert.equal(integers.admits('a')?.valid, false)
    assert.equal(integers.admits(3)?.valid, true)
    assert.equal(strings.admits(3)?.valid, false)
    assert.deepEqual([...integers.admits(-1)?.keywords ?? []], ['minimum'])
    strings.release() // kept for the next judge
    integers.release() // one kept is enough: ended
    for (const form of [{ const: 1 }, { type: 'array' }]) {
      const judge = new Judge(form, 60_000)
      assert.equal(judge.problem, undefined)
      assert.equal(judge.admits(1)?.valid, 'const' in form)
      assert.equal(judge.why, undefined)
      judge.release()
    }
  })

  it('a form that is no 2020-12 schema is said to be one, by a judge made while another lives', () => {
    const other = new Judge({}, 60_000)
    const judge = new Judge({ type: 'text' }, 60_000)
    assert.match(judge.problem ?? '', /type/)
    judge.release()
    other.release()
  })
})
