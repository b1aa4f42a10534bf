// The inputs the page builds from s (src/page/inputs.ts): corners of $ref and allOf.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { renderInputs } from '../../src/page/inputs.ts'
import type { JsonObject } from '../../src/json/value.ts'

/** The markup of one member, up to the next member. */
function memberOf (html: string, name: string): string {
  const at = html.indexOf(`data-name="${name}"`)
  assert.notEqual(at, -1, `a member ${name}`)
  const next = html.indexOf('data-name=', at + 1)
  return html.slice(at, next === -1 ? undefined : next)
}

describe('inputs generated from s: $ref and allOf', () => {
  it('an allOf with a false part admits no value, and says so instead of offering an input', () => {
    const html = renderInputs({ type: 'object', properties: { b: { allOf: [{ type: 'string' }, false] }, c: { allOf: [{ type: 'string' }] } } })
    assert.match(memberOf(html, 'b'), /data-kind="never"[^]*no value is allowed/)
    assert.doesNotMatch(memberOf(html, 'b'), /<(input|textarea|select) (?!type="checkbox" class="include")/, 'no control for a value')
    assert.match(memberOf(html, 'c'), /data-kind="string"/)
  })

  it('a $ref whose percent-encoding is broken is not followed: the member is written as JSON', () => {
    for (const ref of ['#/%E0%A4%A', '#/%', '#%zz']) {
      const html = renderInputs({ type: 'object', properties: { c: { $ref: ref } }, $defs: { '%': { type: 'string' } } } as JsonObject)
      assert.match(memberOf(html, 'c'), /data-kind="json"[^]*its \$ref is not shown as inputs/, ref)
    }
    // Encoded well, the same target is followed.
    const html = renderInputs({ type: 'object', properties: { c: { $ref: '#/$defs/%25' } }, $defs: { '%': { type: 'string' } } } as JsonObject)
    assert.match(memberOf(html, 'c'), /data-kind="string"/)
  })

  it('required written beside a $ref joins the target\'s own: every name in either is required', () => {
    const html = renderInputs({
      $ref: '#/$defs/a',
      required: ['y'],
      properties: { y: { type: 'string' } },
      $defs: { a: { type: 'object', properties: { x: { type: 'string' }, z: { type: 'string' } }, required: ['x'] } }
    })
    assert.doesNotMatch(memberOf(html, 'x'), /data-optional/)
    assert.doesNotMatch(memberOf(html, 'y'), /data-optional/)
    assert.match(memberOf(html, 'z'), /data-optional/, 'a name in neither stays optional')
  })
})
