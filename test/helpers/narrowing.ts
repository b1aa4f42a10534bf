// The other direction of holding a decoder profile to its converter: values a form admits that the
// converter's grammar never writes. Values are proposed by the checker's generator, then one leaf
// at a time is replaced by a number or string chosen to sit on the edges converters draw (a
// fraction by a bound, an exponent, a quote); @cfworker/json-schema, not the address's Ajv, says
// whether the form admits the value. A value is never written when the grammar accepts none of
// the texts that spell it; each such value must be foreseen by a decoder-tightens finding of the
// profile at the schema the leaf stands in, and each such finding lint makes on a number or a
// string must be shown by one value.
import { Validator } from '@cfworker/json-schema'
import { generate, random, type Path, type Schema, type Site } from '../../src/check/generate.ts'
import type { Json } from '../../src/form/compile.ts'
import { lint, type DecoderName, type Finding } from '../../src/lint/index.ts'
import { unescape } from '../../src/json/pointer.ts'
import { isObject, resolve } from '../../src/lint/schema.ts'

/** Whether the converter's grammar accepts the whole text; undefined when it refuses the form. */
export type Accepts = (texts: readonly string[]) => Promise<boolean[] | undefined>

export const NUMBERS = [0, 0.5, -0.5, 1.5, -4, -4.5, -5, 0.25, 3, 7, 12.5, 1.1234567, 1e-7, 100, -1.5, 2 ** 31]
export const STRINGS = ['a"b', 'a\\b', 'a\nb', '"', '\\', '\n', 'ab', 'abc', 'a', '', 'aaa', 'é', '2026-12-03T10:00:00Z', '2026-12-03t10:00:00z',
  '2026-12-03T10:00:00.5Z', '2016-12-31T23:59:60Z', '10:00:00Z', '10:00:00z', '10:00:00.5Z', '23:59:60Z']

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
// Members in the generator's order (required first), reversed, in the form's `properties` order,
// and in that order with the required first (llama.cpp's): a converter writes its own order.
const ORDERS = ['required', 'properties', 'generated', 'reversed'] as const
type Order = typeof ORDERS[number]
type Shapes = ReadonlyMap<string, Schema>
function arrange (names: string[], schema: Schema | undefined, order: Order): string[] {
  if (order === 'generated') return names
  if (order === 'reversed') return names.reverse()
  const named = Object.keys(isObject(schema?.['properties']) ? schema['properties'] : {})
  const required = new Set(Array.isArray(schema?.['required']) ? schema['required'] : [])
  const rank = (name: string): number => {
    const i = named.indexOf(name)
    if (i < 0) return 2 * named.length + names.indexOf(name)
    return order === 'required' && !required.has(name) ? named.length + i : i
  }
  return names.sort((a, b) => rank(a) - rank(b))
}
/** The value's compact JSON, members in `order`, with the leaf at `path` (if any) written as `spelt`. */
function write (value: unknown, path: Path | undefined, spelt: string, order: Order, shapes: Shapes, at: Path = []): string {
  if (path?.length === 0) return spelt
  const [head, ...rest] = path ?? []
  const inner = (key: string | number, v: unknown): string => write(v, key === head && path !== undefined ? rest : undefined, spelt, order, shapes, [...at, key])
  if (Array.isArray(value)) return `[${value.map((item, i) => inner(i, item)).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const object = value as Record<string, unknown>
  return `{${arrange(Object.keys(object), shapes.get(JSON.stringify(at)), order).map((name) => `${JSON.stringify(name)}:${inner(name, object[name])}`).join(',')}}`
}
/** Whether the schema at `pointer` (with the form's $defs) admits a value; any value where it cannot be judged alone. */
function admitting (form: Json, pointer: string): (value: unknown) => boolean {
  const schema = resolve(form, pointer)
  if (!isObject(schema)) return () => true
  const validator = new Validator({ ...schema, ...(isObject(form) && '$defs' in form ? { $defs: form['$defs'] } : {}) }, '2020-12', false)
  return (value) => {
    try {
      return validator.validate(value).valid
    } catch {
      return true // a $ref that leaves the schema
    }
  }
}
/** The pointers of the other alternatives of each anyOf or oneOf the schema at `pointer` is one of. */
function alternatives (form: Json, pointer: string): string[] {
  const tokens = pointer.split('/')
  return tokens.flatMap((_, i) => {
    if (i === 0 || !['anyOf', 'oneOf'].includes(tokens[i - 1] ?? '')) return []
    const union = tokens.slice(0, i).join('/')
    const list = resolve(form, union)
    return Array.isArray(list) ? list.map((_, k) => `${union}/${k}`).filter((other) => other !== tokens.slice(0, i + 1).join('/')) : []
  })
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

interface Candidate {
  readonly path: Path
  /** The texts that write the value, the likeliest first. */
  readonly texts: string[]
  /** The unchanged value the leaf was put into, if the form admits it; none for that value itself. */
  readonly base?: Candidate
  /** For a value with a leaf put in: the run and the place, and the leaf. */
  readonly group?: string
  readonly leaf?: unknown
  /** For a value the generator proposed, the locations it recorded. */
  readonly sites?: readonly Site[]
  written?: boolean
}

/** Whether the grammar writes each candidate, asking one text of each first, then the others of those not yet written. */
async function ask (accepts: Accepts, candidates: readonly Candidate[]): Promise<boolean> {
  for (const round of [(c: Candidate) => c.texts.slice(0, 1), (c: Candidate) => c.written === true ? [] : c.texts.slice(1)]) {
    const asked = candidates.map(round)
    const verdicts = await accepts(asked.flat())
    if (verdicts === undefined) return false
    let i = 0
    candidates.forEach((c, k) => {
      const n = asked[k]?.length ?? 0
      c.written = c.written === true || verdicts.slice(i, i + n).includes(true)
      i += n
    })
  }
  return true
}

/**
 * One form: values proposed from `seeds` generator runs, each leaf replaced in turn; what the
 * grammar never writes is checked against lint's decoder-tightens findings for `decoder`. A value
 * the generator proposed that the grammar never writes is checked itself, its variants not: the
 * leaf they change is not what keeps them unwritten. Where the form does not admit that value,
 * a variant is checked only if another with a leaf at the same place is written.
 */
export async function narrowsOn (form: Json, decoder: DecoderName, accepts: Accepts, t: Narrowing, seeds = 4): Promise<void> {
  const findings = lint(form, { decoders: [decoder] })
  if (findings.some((f) => f.rule === 'decoder-refuses' || f.rule === 'form-admits-nothing')) return
  const tightens = findings.filter((f) => f.rule === 'decoder-tightens')
  const validator = new Validator(form as object, '2020-12', false)
  const candidates = new Map<string, Candidate>()
  for (let seed = 1; seed <= seeds; seed++) {
    const made = generate(form as Schema, random(seed))
    if (made === undefined || candidates.has(JSON.stringify(made.value))) continue
    const shapes = new Map(made.sites.map((site) => [JSON.stringify(site.path), site.schema]))
    const texts = (value: unknown, path: Path | undefined, leaf: unknown): string[] =>
      [...new Set(spellings(leaf).flatMap((spelt) => ORDERS.map((order) => write(value, path, spelt, order, shapes))))]
    // the generator proposes; a value it made that the form does not admit is the base of nothing
    const base: Candidate | undefined = validator.validate(made.value).valid ? { path: [], texts: texts(made.value, undefined, null), sites: made.sites } : undefined
    if (base !== undefined) candidates.set(JSON.stringify(made.value), base)
    for (const site of made.sites) {
      const here = getAt(made.value, site.path)
      const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((key) => site.schema[key]).filter((b): b is number => typeof b === 'number')
      // and strings of the lengths the site bounds, each with a character to escape
      const lengths = ['minLength', 'maxLength'].map((key) => site.schema[key]).filter((n): n is number => typeof n === 'number' && n >= 1 && n <= 40)
      const leaves = typeof here === 'object' && here !== null
        ? []
        : [...NUMBERS, ...bounds.flatMap((b) => [b, b + 0.5, b - 0.5, b + 0.1234567, b - 0.1234567]), ...STRINGS, ...lengths.flatMap((n) => ['"', '\\', '\n'].map((c) => c.padEnd(n, 'a')))]
      for (const leaf of leaves) {
        const value = setAt(made.value, site.path, leaf)
        const text = JSON.stringify(value)
        if (!candidates.has(text) && validator.validate(value).valid) {
          candidates.set(text, { path: site.path, texts: texts(value, site.path, leaf), group: `${seed} ${JSON.stringify(site.path)}`, leaf, ...(base === undefined ? {} : { base }) })
        }
      }
    }
  }
  if (candidates.size === 0) return
  t.forms++
  if (!await ask(accepts, [...candidates.values()])) return
  const shown = new Set<Finding>()
  const at = (f: Finding, path: Path): boolean => same(names(schemaOf(f)), namesOf(path))
  const writtenGroups = new Set([...candidates.values()].filter((c) => c.written === true).map((c) => c.group))
  for (const c of candidates.values()) {
    if (c.base?.written === false || (c.base === undefined && c.group !== undefined && !writtenGroups.has(c.group))) continue
    t.values++
    if (c.written === true) continue
    const foreseen = tightens.filter((f) => c.sites?.some((site) => at(f, site.path)) ?? at(f, c.path))
    const label = `${JSON.stringify(namesOf(c.path))}: ${c.texts[0] ?? ''}`
    if (foreseen.length === 0) t.unforeseen.push(`${JSON.stringify(form).slice(0, 160)} ${label}`)
    else {
      t.narrowed.push(label)
      for (const f of foreseen) shown.add(f)
    }
  }
  // a finding on a bound is to be shown where a leaf its schema admits, and no other alternative
  // of a union it stands in, was put (the other may write it)
  const tried = (f: Finding): boolean => {
    const admits = admitting(form, schemaOf(f))
    const others = alternatives(form, schemaOf(f)).map((pointer) => admitting(form, pointer))
    return [...candidates.values()].some((c) => c.group !== undefined && at(f, c.path) && admits(c.leaf) && !others.some((other) => other(c.leaf)))
  }
  for (const f of tightens) if (LEAF_KEYWORD.test(f.pointer) && !shown.has(f) && tried(f)) t.unshown.push(`${JSON.stringify(form).slice(0, 160)} ${f.pointer}`)
}
