// Values just inside and just outside a form: an example of each schema, and variants of it that
// break one keyword at a time, each labelled with the pointer and keyword it aims at. Used to
// check lint's decoder judgements against a real converter (test/lint/xgrammar.test.ts). How one
// keyword is broken at one place is the checker's (`proposals`), as are a sample of each format and
// a value of each type; what is here walks the form to every place, makes values the form admits
// (a string its pattern matches, which the checker's generator leaves to its judge), and writes
// bodies no JSON.stringify writes.
import { FORMATS } from '../../src/check/generate.ts'
import { ANY_TYPE as CHECKER_ANY_TYPE, Beyond, proposals } from '../../src/check/near-miss.ts'
import { escape, isObject, listOf, refTarget, resolve, type Json, type JsonObject } from '../../src/lint/schema.ts'

export interface Near {
  /** Pointer of the schema whose keyword the value aims at. */
  readonly at: string
  readonly keyword: string
  readonly value: Json
}

const MAX_DEPTH = 6
const OBJECT_KEYWORDS = ['properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties', 'required']
const CANDIDATES = ['a', 'b', 'c', 'ab', 'abc', 'x', '0', '1', 'aa', 'bb', 'A', '-']
const ANY_TYPE = CHECKER_ANY_TYPE as readonly Json[]
/** The checker's proposals for one keyword, none where its bound asks for too large a value. */
const broken = (keyword: string, schema: JsonObject, current: Json, item?: Json): Json[] => {
  try {
    return proposals(keyword, schema, current, item) as Json[]
  } catch (error) {
    if (error instanceof Beyond) return []
    throw error
  }
}
const NAMES = ['a', 'foo', 'bar', 'v', 'fo', 'f', 'x', '1', 'á', 'aaa', 'a1', 'ab', 'l\'école', '\u{1F432}', 'foo\nbar', 'foo"bar']
// Keywords by the type of value they constrain: a schema without a type is tried with each.
const ASKS: Record<string, readonly string[]> = {
  array: ['minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'items', 'prefixItems', 'unevaluatedItems'],
  object: ['required', 'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'minProperties',
    'maxProperties', 'dependentRequired', 'dependentSchemas'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
}

/** A member whose name is in this object's marker is written twice (JSON.stringify cannot say that). */
export const TWICE = '\u0000twice'
// Characters of a string value written raw into the body's text (JSON.stringify would escape them),
// and a string written as the number it holds: what a decoder may write that is not JSON's.
const RAW: Record<string, string> = { '\uE001': '\t', '\uE002': '\u0001', '\uE003': '"', '\uE004': '\\' }
const NUMBER = '\uE005'
/** A string value with a raw TAB, a raw U+0001, a raw quote or a raw backslash in its text. */
export const RAW_TAB = '\uE001'
export const RAW_SOH = '\uE002'
export const RAW_BACKSLASH = '\uE004'
/** A value written as this number's text (1e400: no double holds it). */
export const numberText = (text: string): Json => `${NUMBER}${text}`

/** The body's text: JSON, but for the members marked to be written twice and the raw characters. */
export function bodyText (value: Json): string {
  return text(value).replace(new RegExp(`"${NUMBER}([^"]*)"`, 'g'), '$1').replace(/[\uE001-\uE004]/g, (c) => RAW[c] as string)
}
function text (value: Json): string {
  if (Array.isArray(value)) return `[${value.map(text).join(',')}]`
  if (!isObject(value)) return JSON.stringify(value)
  const twice = value[TWICE]
  const members = Object.entries(value).filter(([name]) => name !== TWICE).map(([name, v]) => `${JSON.stringify(name)}:${text(v)}`)
  const again = typeof twice === 'string' && Object.hasOwn(value, twice) ? [`${JSON.stringify(twice)}:${text(value[twice] as Json)}`] : []
  return `{${[...members, ...again].join(',')}}`
}

/** Strings and numbers as a decoder may write them and the address's parser refuses. */
function wire (schema: Json, base: Json | undefined): Array<[keywords: string[], value: Json]> {
  const typed = isObject(schema) ? schema['type'] : undefined
  const types = new Set(typeof typed === 'string' ? [typed] : Array.isArray(typed) ? typed : ['string', 'number', 'object'])
  const keys = isObject(schema) ? ['maxLength', 'minLength', 'pattern'].filter((key) => key in schema) : []
  const out: Array<[string[], Json]> = []
  if (types.has('string') || typeof base === 'string') {
    const text = typeof base === 'string' && base.length > 0 ? base : 'a'
    for (const raw of [RAW_TAB, RAW_SOH]) out.push([keys, raw + text.slice(1)], [keys, raw])
    for (const value of [RAW_BACKSLASH, `${RAW_BACKSLASH}u0041`, `a${RAW_BACKSLASH}`, 'a\u2028b', '\u2029', 'a\rb']) out.push([keys, value])
    out.push([['', ...keys], text.slice(0, -1) + '\ud800'], [[''], '\udc00'])
  }
  if (types.has('number') || types.has('integer')) for (const n of ['1e400', '-1e400', '1e-400', '9007199254740993']) out.push([[''], numberText(n)])
  if (types.has('object')) out.push([[''], { a: null, [TWICE]: 'a' }], [[''], { 'z\ud800': null }], [[''], {}])
  return out
}

/** A name the pattern admits whole (XGrammar anchors it) and as JSON Schema reads it. */
const nameFor = (pattern: string): string | undefined => {
  try {
    const whole = new RegExp(`^(?:${pattern.replace(/^\^/, '').replace(/\$$/, '')})$`, 'u')
    // A name read off the pattern: one character for each class or wildcard, quantifiers dropped.
    const read = pattern.replace(/^\^|\$$/g, '').replace(/\\[wd]|\.|\[\^?([^\]])[^\]]*\]/g, (m, c: string | undefined) => c ?? (m === '\\d' ? '1' : 'a')).replace(/[*+?]/g, '')
    return [read, ...NAMES].find((name) => whole.test(name) && new RegExp(pattern, 'u').test(name))
  } catch {
    return undefined
  }
}

function merged (schema: JsonObject, branch: Json): JsonObject {
  const rest: Record<string, Json> = { ...schema }
  for (const key of ['anyOf', 'oneOf', 'allOf']) delete rest[key]
  return isObject(branch) ? { ...rest, ...branch } : rest
}

/** Near-miss values for the form: a tree of variants, each a whole body. */
/** A value the schema admits, where one is easily made. */
export const exampleOf = (form: Json): Json | undefined => nearMisses(form, 0)[0]?.value

/** wire: bodies a decoder may write that are not JSON's too; requiredFirst: members required first (llama.cpp's order), else in `properties` order. */
export function nearMisses (form: Json, cap = 600, options: { wire?: boolean, requiredFirst?: boolean } = {}): Near[] {
  const example = (schema: Json, depth: number): Json | undefined => {
    if (schema === true) return null
    if (!isObject(schema) || depth > MAX_DEPTH) return undefined
    const target = refTarget(schema['$ref'])
    if (target !== undefined) return example(resolve(form, target) ?? true, depth + 1)
    if ('const' in schema) return schema['const'] as Json
    if (Array.isArray(schema['enum'])) return schema['enum'][0]
    for (const key of ['anyOf', 'oneOf']) {
      for (const branch of listOf(schema[key])) {
        const value = example(merged(schema, branch), depth + 1)
        if (value !== undefined) return value
      }
    }
    if (Array.isArray(schema['allOf'])) return example(schema['allOf'].reduce<JsonObject>((all, branch) => merged(all, branch), merged(schema, {})), depth + 1)
    const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type']
    const n = (key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
    switch (type) {
      case 'null': return null
      case 'boolean': return true
      case 'integer': case 'number': {
        const low = n('minimum') ?? ((n('exclusiveMinimum') ?? -Infinity) + 1)
        const high = n('maximum') ?? ((n('exclusiveMaximum') ?? Infinity) - 1)
        const step = n('multipleOf') ?? 1
        let value = Number.isFinite(low) ? Math.ceil(low / step) * step : Number.isFinite(high) ? Math.floor(high / step) * step : 0
        if (type === 'integer') value = Math.ceil(value)
        return value
      }
      case 'string': {
        const format = typeof schema['format'] === 'string' ? FORMATS[schema['format']] : undefined
        if (format !== undefined) return format
        if (typeof schema['pattern'] === 'string') {
          const pattern = new RegExp(schema['pattern'], 'u')
          return CANDIDATES.find((candidate) => pattern.test(candidate)) ?? 'a'
        }
        return 'a'.repeat(Math.max(n('minLength') ?? 0, Math.min(1, n('maxLength') ?? 1)))
      }
      case 'array': {
        const prefix = listOf(schema['prefixItems'])
        const count = Math.min(n('maxItems') ?? Infinity, Math.max(n('minItems') ?? 0, prefix.length, schema['items'] === undefined || schema['items'] === false ? 0 : 1))
        const items: Json[] = []
        for (let i = 0; i < count; i++) {
          const item = example(i < prefix.length ? prefix[i] as Json : schema['items'] ?? true, depth + 1)
          if (item === undefined) return undefined
          items.push(item)
        }
        return items
      }
      default: {
        // a schema of object keywords and no type: an object, as converters read it (null is admitted too)
        if (type !== 'object' && !OBJECT_KEYWORDS.some((key) => key in schema)) return null
        const out: Record<string, Json> = {}
        const properties = isObject(schema['properties']) ? schema['properties'] : {}
        for (const [name, child] of Object.entries(properties)) {
          const value = example(child, depth + 1)
          // an optional member no string fills (minLength above maxLength) is left out
          const empty = !listOf(schema['required']).includes(name) && isObject(child) && Number(child['minLength'] ?? 0) > Number(child['maxLength'] ?? Infinity)
          if (value !== undefined && !empty) out[name] = value
          else if (listOf(schema['required']).includes(name)) return undefined
        }
        for (const name of listOf(schema['required'])) if (typeof name === 'string' && !(name in out)) out[name] = null
        if (options.requiredFirst !== true) return out
        const required = new Set(listOf(schema['required']))
        return Object.fromEntries([...Object.entries(out).filter(([name]) => required.has(name)), ...Object.entries(out).filter(([name]) => !required.has(name))])
      }
    }
  }

  const near = (schema: Json | undefined, at: string, depth: number, out: Near[]): void => {
    if (schema === undefined || depth > MAX_DEPTH || out.length > cap) return
    const add = (keyword: string, value: Json): void => { out.push({ at, keyword, value }) }
    if (options.wire === true && schema !== false) for (const [keywords, value] of wire(schema, example(schema, depth))) for (const keyword of keywords) add(keyword, value)
    if (!isObject(schema)) return
    const first = example(schema, depth)
    const bases = [first]
    if (!('type' in schema) && !('$ref' in schema)) {
      for (const [type, keys] of Object.entries(ASKS)) if (keys.some((key) => key in schema)) bases.push(example({ ...schema, type }, depth))
    }
    if ('$ref' in schema && refTarget(schema['$ref']) === undefined) for (const value of ANY_TYPE) add('$ref', value)
    bases.forEach((base, i) => { if (base !== undefined) typed(schema, at, depth, out, base, i === 0) })
  }

  // What does not depend on the value's type: other types, literals, in-place subschemas.
  const inPlace = (schema: JsonObject, at: string, depth: number, out: Near[], base: Json): void => {
    const add = (keyword: string, value: Json): void => { out.push({ at, keyword, value }) }
    for (const value of broken('type', schema, base)) add('type', value)
    const target = refTarget(schema['$ref'])
    if (target !== undefined) near(resolve(form, target) ?? true, target, depth + 1, out)
    // Subschemas applied in place are tried together with what stands beside them.
    const rest: Record<string, Json> = { ...merged(schema, {}) }
    for (const key of ['not', 'if', 'then', 'else']) delete rest[key]
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      listOf(schema[key]).forEach((branch, i) => {
        const value = example(merged(schema, branch), depth + 1)
        if (value !== undefined) add(key, value)
        near(merged(rest, branch), `${at}/${key}/${i}`, depth + 1, out)
      })
    }
    if ('not' in schema) {
      const value = example(merged(rest, schema['not'] as Json), depth + 1)
      if (value !== undefined) add('not', value)
    }
    if ('then' in schema) near(merged(merged(rest, schema['if'] ?? true), schema['then'] as Json), `${at}/then`, depth + 1, out)
    if ('else' in schema) near(merged(rest, schema['else'] as Json), `${at}/else`, depth + 1, out)
    for (const key of ['enum', 'const']) if (key in schema) for (const value of broken(key, schema, base)) add(key, value)
  }

  const typed = (schema: JsonObject, at: string, depth: number, out: Near[], base: Json, own: boolean): void => {
    const add = (keyword: string, value: Json): void => { out.push({ at, keyword, value }) }
    const breakAll = (keywords: readonly string[], current: Json, item?: Json): void => {
      for (const key of keywords) if (key in schema) for (const value of broken(key, schema, current, item)) add(key, value)
    }
    if (own) inPlace(schema, at, depth, out, base)
    const n = (key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
    breakAll(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'], base)
    // Without a type, string keywords are tried on a string all the same.
    const text = typeof base === 'string' ? base : own && ['minLength', 'maxLength', 'pattern', 'format'].some((key) => key in schema) ? 'a' : undefined
    if (text !== undefined) breakAll(['maxLength', 'minLength', 'pattern', 'format'], text)
    if (Array.isArray(base)) {
      const item = base.at(-1) ?? example(schema['items'] ?? true, depth + 1) ?? null
      breakAll(['maxItems', 'minItems', 'uniqueItems'], base, item)
      if ('contains' in schema) add('contains', [])
      const hit = example(schema['contains'] ?? true, depth + 1)
      if (hit !== undefined) {
        if ('maxContains' in schema) add('maxContains', Array.from({ length: (n('maxContains') ?? 0) + 1 }, () => hit))
        if ('minContains' in schema) add('minContains', Array.from({ length: Math.max(0, (n('minContains') ?? 0) - 1) }, () => hit))
        if ('contains' in schema) add('contains', [hit, hit])
      }
      for (const value of ANY_TYPE) add('items', [...base, value])
      const inside = (child: Json | undefined, pointer: string, index: number): void => {
        const inner: Near[] = []
        near(child, pointer, depth + 1, inner)
        for (const variant of inner) out.push({ ...variant, value: Object.assign([...base], { [index]: variant.value }) })
      }
      inside(schema['items'], `${at}/items`, listOf(schema['prefixItems']).length)
      listOf(schema['prefixItems']).forEach((prefix, i) => inside(prefix, `${at}/prefixItems/${i}`, i))
    }
    if (isObject(base)) {
      // Members removed or added are tried whether or not the form bounds them.
      for (const key of ['required', 'additionalProperties', 'maxProperties', 'minProperties']) for (const value of broken(key, schema, base)) add(key, value)
      add('propertyNames', { ...base, 'a-much-longer-name': 1 })
      for (const [name, names] of Object.entries(isObject(schema['dependentRequired']) ? schema['dependentRequired'] : {})) {
        const value: Record<string, Json> = { ...base, [name]: base[name] ?? 1 }
        for (const other of listOf(names)) if (typeof other === 'string') delete value[other]
        add('dependentRequired', value)
      }
      for (const name of Object.keys(isObject(schema['dependentSchemas']) ? schema['dependentSchemas'] : {})) add('dependentSchemas', { ...base, [name]: base[name] ?? 1 })
      const member = (name: string, child: Json, pointer: string): void => {
        const inner: Near[] = []
        near(child, pointer, depth + 1, inner)
        for (const variant of inner) out.push({ ...variant, value: { ...base, [name]: variant.value } })
      }
      for (const [name, child] of Object.entries(isObject(schema['properties']) ? schema['properties'] : {})) member(name, child, `${at}/properties/${escape(name)}`)
      // Members the form lets in by pattern, by name or as extras, each also written twice.
      const twice = (keyword: string, name: string, value: Json): void => {
        for (const around of [base, {}]) {
          add(keyword, { ...around, [name]: value })
          add(keyword, { ...around, [name]: value, [TWICE]: name })
        }
      }
      for (const [pattern, child] of Object.entries(isObject(schema['patternProperties']) ? schema['patternProperties'] : {})) {
        const name = nameFor(pattern)
        const value = example(child, depth + 1)
        if (name !== undefined && value !== undefined) twice('patternProperties', name, value)
        if (name !== undefined) member(name, child, `${at}/patternProperties/${escape(pattern)}`)
      }
      const names = schema['propertyNames']
      const named = isObject(names) ? example({ ...names, type: 'string' }, depth + 1) : undefined
      if (typeof named === 'string') twice('propertyNames', named, null)
      if ('propertyNames' in schema) for (const name of NAMES) add('propertyNames', { ...base, [name]: null })
      for (const key of ['additionalProperties', 'unevaluatedProperties']) {
        const value = key in schema ? example(schema[key] as Json, depth + 1) : undefined
        if (value !== undefined) twice(key, 'zz', value)
        if (value !== undefined && options.wire === true) add(key, { ...base, 'z\ud800': value })
      }
      const [firstName] = Object.keys(base)
      if (firstName !== undefined) for (const key of ['additionalProperties', 'unevaluatedProperties', 'patternProperties', 'propertyNames']) if (key in schema) add(key, { ...base, [TWICE]: firstName })
    }
  }
  const out: Near[] = []
  near(form, '', 0, out)
  const base = example(form, 0)
  return base === undefined ? out : [{ at: '', keyword: '', value: base }, ...out]
}
