// The other direction of holding a decoder profile to its converter: values a form admits that the
// converter's grammar never writes. Values are proposed by the checker's generator, then one leaf
// at a time is replaced by a number or string chosen to sit on the edges converters draw (a
// fraction by a bound, an exponent, a quote); @cfworker/json-schema, not the address's Ajv, says
// whether the form admits the value. A value is never written when the grammar accepts none of
// the texts that spell it; each such value must be foreseen by a decoder-tightens finding of the
// profile at the schema the leaf stands in, and each such finding lint makes on a number or a
// string must be shown by one value.
import { Validator } from '@cfworker/json-schema'
import { generate, random, type Path, type Schema } from '../../src/check/generate.ts'
import type { Json } from '../../src/form/compile.ts'
import { lint, type DecoderName, type Finding } from '../../src/lint/index.ts'
import { unescape } from '../../src/json/pointer.ts'

/** Whether the converter's grammar accepts the whole text; undefined when it refuses the form. */
export type Accepts = (texts: readonly string[]) => Promise<boolean[] | undefined>

export const NUMBERS = [0, 0.5, -0.5, 1.5, -4, -4.5, -5, 0.25, 3, 7, 12.5, 1.1234567, 1e-7, 100, -1.5, 2 ** 31]
export const STRINGS = ['a"b', 'a\\b', 'a\nb', '"', '\\', '\n', 'ab', 'abc', 'a', '', 'aaa', 'é', '2026-12-03T10:00:00Z', '2026-12-03t10:00:00z']

export interface Narrowing {
  forms: number
  values: number
  /** Values the form admits that the grammar never writes, as `pointer-of-leaf: text`, each foreseen. */
  narrowed: string[]
  /** The same, foreseen by no decoder-tightens finding at the leaf's schema. */
  unforeseen: string[]
  /** decoder-tightens findings on a number or string bound that no value showed. */
  unshown: string[]
}
export const narrowing = (): Narrowing => ({ forms: 0, values: 0, narrowed: [], unforeseen: [], unshown: [] })

// The texts that write a value: JSON.stringify's, and numbers in other notations, strings escaped.
function spellings (value: unknown): string[] {
  if (typeof value === 'number') return [...new Set([JSON.stringify(value), value.toExponential(), Number.isInteger(value) ? `${value}.0` : String(value)])]
  if (typeof value === 'string') return [JSON.stringify(value), `"${[...value].map((c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join('')}"`]
  return [JSON.stringify(value)]
}

const setAt = (value: unknown, path: Path, leaf: unknown): unknown => {
  if (path.length === 0) return leaf
  const [head, ...rest] = path as [string | number, ...Array<string | number>]
  if (Array.isArray(value)) return value.map((item, i) => i === head ? setAt(item, rest, leaf) : item)
  const object = value as Record<string, unknown>
  return Object.fromEntries(Object.entries(object).map(([name, v]) => [name, name === head ? setAt(v, rest, leaf) : v]))
}
/** The value's compact JSON, with the leaf at `path` written as `spelt`. */
// Members in the generator's order (required first) and reversed: a converter writes its own order.
function write (value: unknown, path: Path | undefined, spelt: string, reversed = false): string {
  if (path?.length === 0) return spelt
  const [head, ...rest] = path ?? []
  const at = (key: string | number, v: unknown): string => key === head && path !== undefined ? write(v, rest, spelt, reversed) : write(v, undefined, spelt, reversed)
  if (Array.isArray(value)) return `[${value.map((item, i) => at(i, item)).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const members = Object.entries(value as Record<string, unknown>).map(([name, v]) => `${JSON.stringify(name)}:${at(name, v)}`)
  return `{${(reversed ? members.reverse() : members).join(',')}}`
}
const getAt = (value: unknown, path: Path): unknown => path.reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], value)

// The member names along a pointer into a form, and along a path into a value: a leaf is foreseen
// by a finding whose schema lies on the same members.
const names = (pointer: string): string[] => {
  const tokens = pointer.split('/').slice(1).map(unescape)
  return tokens.filter((_, i) => tokens[i - 1] === 'properties' && tokens[i - 2] !== 'properties')
}
const namesOf = (path: Path): string[] => path.filter((key): key is string => typeof key === 'string')
// Through a $ref the pointer's names start again at the definition: the last names must agree.
const same = (a: readonly string[], b: readonly string[]): boolean => a.length <= b.length && a.every((x, i) => x === b[b.length - a.length + i])
const schemaOf = (finding: Finding): string => finding.pointer.replace(/\/(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|pattern|format)$/, '')
const LEAF_KEYWORD = /\/(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength)$/

/**
 * One form: values proposed from `seeds` generator runs, each leaf replaced in turn; what the
 * grammar never writes is checked against lint's decoder-tightens findings for `decoder`.
 */
export async function narrowsOn (form: Json, decoder: DecoderName, accepts: Accepts, t: Narrowing, seeds = 4): Promise<void> {
  const findings = lint(form, { decoders: [decoder] })
  if (findings.some((f) => f.rule === 'decoder-refuses' || f.rule === 'form-admits-nothing')) return
  const tightens = findings.filter((f) => f.rule === 'decoder-tightens')
  const validator = new Validator(form as object, '2020-12', false)
  const candidates = new Map<string, { path: Path, texts: string[] }>()
  for (let seed = 1; seed <= seeds; seed++) {
    const made = generate(form as Schema, random(seed))
    if (made === undefined) continue
    for (const site of made.sites) {
      const here = getAt(made.value, site.path)
      const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((key) => site.schema[key]).filter((b): b is number => typeof b === 'number')
      const leaves = typeof here === 'object' && here !== null ? [] : [...NUMBERS, ...bounds.flatMap((b) => [b, b + 0.5, b - 0.5, b + 0.1234567, b - 0.1234567]), ...STRINGS]
      for (const leaf of leaves) {
        const value = setAt(made.value, site.path, leaf)
        if (!validator.validate(value).valid) continue
        const text = JSON.stringify(value)
        if (!candidates.has(text)) candidates.set(text, { path: site.path, texts: [...new Set(spellings(leaf).flatMap((spelt) => [write(value, site.path, spelt), write(value, site.path, spelt, true)]))] })
      }
    }
  }
  if (candidates.size === 0) return
  t.forms++
  const all = [...candidates.values()]
  const verdicts = await accepts(all.flatMap((c) => c.texts))
  if (verdicts === undefined) return
  let i = 0
  const shown = new Set<Finding>()
  for (const { path, texts } of all) {
    const written = texts.map(() => verdicts[i++] === true).some(Boolean)
    t.values++
    if (written) continue
    const at = namesOf(path)
    const foreseen = tightens.filter((f) => same(names(schemaOf(f)), at))
    const label = `${JSON.stringify(at)}: ${texts[0] ?? ''}`
    if (foreseen.length === 0) t.unforeseen.push(`${JSON.stringify(form).slice(0, 160)} ${label}`)
    else {
      t.narrowed.push(label)
      for (const f of foreseen) shown.add(f)
    }
  }
  for (const f of tightens) if (LEAF_KEYWORD.test(f.pointer) && !shown.has(f)) t.unshown.push(`${JSON.stringify(form).slice(0, 160)} ${f.pointer}`)
}
