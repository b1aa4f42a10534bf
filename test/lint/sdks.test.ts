// lint's openai-strict and anthropic profiles against the SDKs' own schema transforms: where a
// transform throws, lint says the runtime refuses the form; where Anthropic's moves a keyword into
// the description, lint says that keyword is not enforced. The counts of agreement are in docs/forms.md.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema'
import fc from 'fast-check'
import { toStrictJsonSchema } from 'openai/lib/transform'
import { compileForm, freezeJson, type Json } from '../../src/form/compile.ts'
import { lint, type DecoderName } from '../../src/lint/index.ts'
import { ASSERTIONS } from '../../src/lint/decoders.ts'
import { escape, isObject, walk, resolve } from '../../src/lint/schema.ts'
import { corpus, randomForm } from '../fixtures/lint-forms.ts'

const throws = (transform: (schema: never) => unknown, form: Json): boolean => {
  try {
    transform(structuredClone(form) as never)
    return false
  } catch {
    return true
  }
}

/** Pointers lint judges refused or loosened for one decoder. */
const unenforced = (form: Json, decoder: DecoderName): { refused: boolean, pointers: Set<string> } => {
  const findings = lint(form, { decoders: [decoder] })
  return {
    refused: findings.some((f) => f.rule === 'decoder-refuses'),
    pointers: new Set(findings.filter((f) => f.rule === 'decoder-refuses' || f.rule === 'decoder-loosens').map((f) => f.pointer))
  }
}

/** Keywords of the form the Anthropic transform leaves out of the schema it sends. */
function moved (form: Json, sent: Json): string[] {
  const out: string[] = []
  walk(form, (schema, place) => {
    const there = resolve(sent, place.pointer.replaceAll('/oneOf/', '/anyOf/'))
    if (!isObject(schema) || !isObject(there)) return
    for (const key of Object.keys(schema)) {
      if (!ASSERTIONS.has(key) || key in there || (key === 'oneOf' && 'anyOf' in there)) continue
      // a type beside literals that all have it says nothing more
      if (key === 'type' && ('enum' in there || 'const' in there)) continue
      out.push(`${place.pointer}/${escape(key)}`)
    }
  })
  return out
}

export interface SdkTally { forms: number, openaiThrows: number, openaiAgreed: number, openaiMissed: string[], openaiStricter: number, anthropicThrows: number, anthropicAgreed: number, anthropicMissed: string[], movedKeywords: number, movedAgreed: number }
const sdkTally = (): SdkTally => ({ forms: 0, openaiThrows: 0, openaiAgreed: 0, openaiMissed: [], openaiStricter: 0, anthropicThrows: 0, anthropicAgreed: 0, anthropicMissed: [], movedKeywords: 0, movedAgreed: 0 })

function compare (form: Json, t: SdkTally, label: string): void {
  try {
    compileForm(freezeJson(form, label), label)
  } catch {
    return
  }
  t.forms++
  const openai = unenforced(form, 'openai-strict')
  if (throws(toStrictJsonSchema, form)) {
    t.openaiThrows++
    if (openai.refused) t.openaiAgreed++
    else t.openaiMissed.push(`${label}: ${JSON.stringify(form)}`)
  } else if (openai.refused) t.openaiStricter++ // the API refuses what the SDK passes on (formats, oneOf, limits)
  const anthropic = unenforced(form, 'anthropic')
  let sent: Json
  try {
    sent = transformJSONSchema(structuredClone(form) as never) as Json
  } catch {
    t.anthropicThrows++
    if (anthropic.refused) t.anthropicAgreed++
    else t.anthropicMissed.push(`${label}: throws ${JSON.stringify(form)}`)
    return
  }
  for (const pointer of moved(form, sent)) {
    t.movedKeywords++
    if (anthropic.pointers.has(pointer)) t.movedAgreed++
    else t.anthropicMissed.push(`${label}: ${pointer} moved ${JSON.stringify(form)}`)
  }
}

describe('lint\'s openai-strict and anthropic profiles, against the SDKs\' transforms', () => {
  it('says the runtime refuses every form a transform throws on, and names every keyword Anthropic\'s moves', () => {
    const t = sdkTally()
    for (const [label, form] of Object.entries(corpus)) compare(form, t, label)
    for (const form of fc.sample(randomForm, { numRuns: 300, seed: 20261201 })) compare(form, t, 'random')
    assert.deepEqual(t.openaiMissed, [])
    assert.deepEqual(t.anthropicMissed, [])
    assert.ok(t.openaiThrows > 10 && t.movedKeywords > 50, JSON.stringify(t))
    if (process.env['LINT_TALLY'] !== undefined) console.log(JSON.stringify(t))
  })
})
