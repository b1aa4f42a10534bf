// llama.cpp: common/json-schema-to-grammar.cpp (common_schema_converter::visit) builds a GBNF
// grammar; src/llama-grammar.cpp parses it, and the server answers 400 when either fails.
import { isObject, listOf, walk, type Json, type JsonObject } from '../schema.ts'
import type { Judgement } from './profile.ts'
import { LONE_SURROGATES, NUMBER_OVERFLOW, REPEATED_NAMES, TEXT_MATCHED, textLeaks } from '../wire.ts'
import { ARRAY, ASSERTIONS, beside, each, isString, NUMBER, num, OBJECT, present, reading, STRING, tabled, typeBesideLiterals, under, undeclared } from './common.ts'
import { escape } from '../../json/pointer.ts'

const LLAMA_LOOSENED = ['multipleOf', 'not', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains',
  'minContains', 'maxContains', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'unevaluatedItems',
  'unevaluatedProperties']
// llama-grammar.cpp MAX_REPETITION_THRESHOLD: the grammar parser refuses a repetition count of
// `{m,n}` that reaches it, and (before cd0fa6051) an upper count past it.
const REPETITIONS = 2000
const SANE = 'the grammar parser refuses it: "number of repetitions exceeds sane defaults, please reduce the number of repetitions"'
// Seen with llama.cpp b10257 (@fugood/llama.node 1.7.15): `char{m,n}` with m above n is never done
// with, and takes memory until the process is ended (test/lint/llama-cpp.test.ts).
const RUNAWAY = 'llama.cpp never finishes with the repetition it writes for a string whose minLength is above its maxLength ({m,n} with m above n): it takes memory until it is ended'
const ANY_OBJECT = `compiled as any object (its "object" rule): ${REPEATED_NAMES}, and a name may hold a lone surrogate escape ("\\ud800")`
const ANY_VALUE = 'compiled as any value (its "value" rule): a string may hold a lone surrogate escape ("\\ud800"), an object may repeat a member name, a number may overflow (1e400), and the parser refuses each'
// Escapes its GBNF parser takes (parse_char), outside and inside a character class; the converter
// unescapes regex metacharacters outside classes and copies every other escape verbatim.
const GBNF_ESCAPES = 'xuUtrn\\"[]-'
const REGEX_META = '^$.[]()|{}*+?'

// The lengths of what its format rules write (date, a time with or without three digits of fraction and a zone, ...).
const LENGTHS: Readonly<Record<string, readonly number[]>> = { date: [10], time: [9, 13, 14, 18], 'date-time': [20, 24, 25, 29], uuid: [36] }
// Its time rule: seconds [0-5][0-9], a fraction of exactly three digits, "T" and "Z" in capitals (seen with llama.cpp b10257).
const CLOCK = 'a fraction of seconds of exactly three digits, and no leap second; RFC 3339 admits each'
const CLOCKS: Readonly<Record<string, string>> = {
  'date-time': `its date-time rule writes T and Z in capitals only, ${CLOCK} (2026-12-03t10:00:00z, 2026-12-03T10:00:00.5Z and 2016-12-31T23:59:60Z are never written)`,
  time: `its time rule writes Z in capitals only, ${CLOCK} (10:00:00z, 10:00:00.5Z and 23:59:60Z are never written)`
}

/**
 * An object closed to members it does not name (additionalProperties false, in the converter's
 * object rule) is written with its named members only: counts and names it already keeps to are
 * lost nothing, and a member only patternProperties names is never written.
 */
function closedObject (schema: JsonObject): { named: string[], required: number } | undefined {
  const type = schema['type']
  if (schema['additionalProperties'] !== false || (type !== undefined && type !== 'object') || ['$ref', 'oneOf', 'anyOf', 'allOf', 'const', 'enum'].some((key) => key in schema)) return undefined
  const named = Object.keys(isObject(schema['properties']) ? schema['properties'] : {})
  return { named, required: listOf(schema['required']).filter((name) => typeof name === 'string' && named.includes(name)).length }
}
const named = (pattern: string, names: readonly string[]): boolean => {
  try {
    const regex = new RegExp(pattern, 'u')
    return names.some((name) => regex.test(name))
  } catch {
    return true
  }
}
function harmless (schema: JsonObject, keyword: string): boolean {
  const value = schema[keyword]
  if (keyword === 'propertyNames') return value === true || (isObject(value) && Object.keys(value).length === 0)
  if (keyword === 'not') return value === false
  const closed = closedObject(schema)
  if (closed === undefined) return false
  if (keyword === 'maxProperties') return typeof value === 'number' && closed.named.length <= value
  if (keyword === 'minProperties') return typeof value === 'number' && closed.required >= value
  return keyword === 'patternProperties' && isObject(value) && !Object.keys(value).some((pattern) => named(pattern, closed.named))
}

/** A pattern llama.cpp cannot convert: unanchored, or with an escape its grammar parser rejects (\d, \w, \s, \p{...}, \1...). */
function llamaPattern (pattern: string): string | undefined {
  if (!pattern.startsWith('^') || !pattern.endsWith('$')) return 'the converter requires a pattern to start with ^ and end with $'
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      if (!GBNF_ESCAPES.includes(next) && (inClass || !REGEX_META.includes(next))) return `its grammar parser has no escape \\${next}`
      i++
    } else if (c === '[') inClass = true
    else if (c === ']') inClass = false
  }
  return undefined
}

/** `{min,max}` as llama-grammar.cpp parses it: refused when either count reaches the threshold. */
function repetition (min: number, max: number | undefined, names: readonly [string, string]): Judgement[] {
  if (min >= REPETITIONS) return [{ keyword: names[0], verdict: 'refused', why: SANE }]
  if (max === REPETITIONS) return [{ keyword: names[1], verdict: 'refused', why: SANE }]
  // Builds from cd0fa6051 (2026-08-05) make an upper bound past the threshold unbounded instead.
  if (max !== undefined && max > REPETITIONS) return [{ keyword: names[1], verdict: 'refused', why: `${SANE} (builds from cd0fa6051, 2026-08-05, drop the bound instead: loosened there)` }]
  return []
}

/** An allOf whose alternatives are each an enum alone: the converter writes their intersection. */
const enumsOnly = (schema: JsonObject): boolean => 'allOf' in schema && !('type' in schema) && listOf(schema['allOf']).every((alt) => isObject(alt) && Object.keys(alt).join() === 'enum')

/** One `visit` of the converter, for a schema whose `type` is absent or a single name. */
function llamaVisit (schema: JsonObject): Judgement[] {
  const out = llamaBranch(schema)
  if ('allOf' in schema && !enumsOnly(schema) && !out.some((j) => j.keyword === 'allOf')) out.push({ keyword: 'allOf', verdict: 'loosened', why: 'not read beside this schema\'s type' })
  return out
}

function llamaBranch (schema: JsonObject): Judgement[] {
  const type = isString(schema['type']) ? schema['type'] : undefined
  const loose = (key: string): boolean => type === undefined || type === key
  const winner = ['$ref', 'oneOf', 'anyOf'].find((key) => key in schema)
  if (winner !== undefined) return beside(schema, winner, [], LLAMA_LOOSENED)
  if ('const' in schema || 'enum' in schema) {
    const out = beside(schema, 'const' in schema ? 'const' : 'enum', ['type'], LLAMA_LOOSENED)
    if (typeBesideLiterals(schema)) out.push({ keyword: 'type', verdict: 'loosened', why: 'not read beside enum or const' })
    return out
  }
  const out: Judgement[] = []
  if (loose('object') && ('properties' in schema || ('additionalProperties' in schema && schema['additionalProperties'] !== true))) {
    out.push(...undeclared(schema), ...each(present(schema, ['allOf']), 'loosened', 'not read beside properties'))
    const extra = schema['additionalProperties']
    if (extra === undefined) out.push({ keyword: '', verdict: 'tightened', why: 'members the form does not name are never produced' })
    else if (extra === false && harmless(schema, 'patternProperties')) out.push({ keyword: 'patternProperties', verdict: 'tightened', why: 'only the members properties names are produced' })
    // _build_object_rule: ( "," additional-kv )* with any string as the name but those listed
    // (_not_strings, whose classes leave out no backslash: seen with llama.cpp b10257)
    else if (extra !== false) out.push({ keyword: 'additionalProperties', verdict: 'loosened', why: `${REPEATED_NAMES}; ${LONE_SURROGATES.replace('a string', 'a name')}; and a name that starts as a listed one may go on with a raw backslash ({"a\\":1} beside "ab": no JSON)` })
    return out
  }
  if (enumsOnly(schema)) return []
  if ((loose('object') || type === 'string') && 'allOf' in schema) {
    // Only the properties (all made required) and enums of each alternative are merged.
    const merged = type !== 'string' && listOf(schema['allOf']).every((alt) => isObject(alt) &&
      ('$ref' in alt || ('properties' in alt && Object.keys(alt).every((key) => !ASSERTIONS.has(key) || ['properties', 'required'].includes(key) || (key === 'type' && alt[key] === 'object')))))
    if (merged) return [{ keyword: 'allOf', verdict: 'tightened', why: 'the properties of its alternatives are merged, each made required' }]
    out.push({ keyword: 'allOf', verdict: 'loosened', why: 'only the properties and enums of its alternatives are merged, into an object' })
    // Seen with llama.cpp b10257: {"allOf": [{"type": "integer"}]} never writes 0.
    const objects = type === 'object' || listOf(schema['allOf']).some((alt) => isObject(alt) && alt['type'] === 'object')
    if (!objects) out.push({ keyword: 'allOf', verdict: 'tightened', why: 'only an object is written: a value of another type it admits never is' })
    return out
  }
  if (loose('array') && ('items' in schema || 'prefixItems' in schema)) {
    if ('items' in schema) {
      out.push(...each(present(schema, ['prefixItems']), 'loosened', 'not read beside items'))
      const min = num(schema, 'minItems') ?? 0
      const max = num(schema, 'maxItems')
      if (max !== 0) out.push(...repetition(Math.max(min - 1, 0), max === undefined ? undefined : max - 1, ['minItems', 'maxItems']))
      return out
    }
    const length = listOf(schema['prefixItems']).length
    out.push({ keyword: 'prefixItems', verdict: 'tightened', why: 'exactly as many items as prefixItems are produced' })
    if ((num(schema, 'minItems') ?? 0) > length) out.push({ keyword: 'minItems', verdict: 'loosened', why: 'only the prefixItems are produced' })
    if ((num(schema, 'maxItems') ?? length) < length) out.push({ keyword: 'maxItems', verdict: 'loosened', why: 'every prefixItem is produced' })
    return out
  }
  if (loose('string') && isString(schema['pattern'])) {
    const broken = llamaPattern(schema['pattern'])
    if (broken !== undefined) return [{ keyword: 'pattern', verdict: 'refused', why: broken }]
    if (/\(\?[^:]/.test(schema['pattern'])) out.push({ keyword: 'pattern', verdict: 'loosened', why: 'lookaround and named groups are skipped' })
    if (textLeaks(schema['pattern'])) out.push({ keyword: 'pattern', verdict: 'loosened', why: TEXT_MATCHED })
    return [...out, ...each(present(schema, ['minLength', 'maxLength', 'format']), 'loosened', 'not read beside pattern')]
  }
  const lengths = isString(schema['format']) && loose('string') ? LENGTHS[schema['format'].replace(/^uuid[1-5]$/, 'uuid')] : undefined
  if (lengths !== undefined) {
    // Its grammar writes each of these lengths: a bound they all keep to loses nothing.
    const kept = lengths.every((n) => n >= (num(schema, 'minLength') ?? 0) && n <= (num(schema, 'maxLength') ?? Infinity))
    const clock = CLOCKS[String(schema['format'])]
    return [...kept ? [] : each(present(schema, ['minLength', 'maxLength']), 'loosened', 'not read beside format'), ...clock === undefined ? [] : [{ keyword: 'format', verdict: 'tightened' as const, why: clock }]]
  }
  // The "char" rule of every other string takes any \\u escape.
  const longest = num(schema, 'maxLength') ?? Infinity
  if (type === 'string' && longest > 0 && (num(schema, 'minLength') ?? 0) > longest) return [{ keyword: 'minLength', verdict: 'refused', why: RUNAWAY }]
  // Seen with llama.cpp b10257: minLength 3 beside maxLength 0 writes "".
  if (type === 'string' && longest === 0 && (num(schema, 'minLength') ?? 0) > 0) return [{ keyword: 'minLength', verdict: 'loosened', why: 'beside maxLength 0 the empty string is written' }]
  // a string of no characters holds no escape
  if (type === 'string') return [...repetition(num(schema, 'minLength') ?? 0, num(schema, 'maxLength'), ['minLength', 'maxLength']), ...longest > 0 ? [{ keyword: '', verdict: 'loosened' as const, why: LONE_SURROGATES }] : []]
  if (type === 'integer') {
    // Bounds are read as 64-bit integers (a fractional minimum is truncated), exclusive ones only alone.
    out.push(...each(['minimum', 'exclusiveMinimum'].filter((key) => typeof schema[key] === 'number' && !Number.isInteger(schema[key]) && (key === 'minimum' || !('minimum' in schema))), 'loosened', 'a fractional lower bound is truncated'))
    if ('minimum' in schema) out.push(...each(present(schema, ['exclusiveMinimum']), 'loosened', 'not read beside minimum'))
    if ('maximum' in schema) out.push(...each(present(schema, ['exclusiveMaximum']), 'loosened', 'not read beside maximum'))
    return out
  }
  if (type === 'number' || type === undefined) out.push(...each(present(schema, NUMBER.filter((key) => key !== 'multipleOf')), 'loosened', 'number bounds are not enforced (integer bounds are)'))
  if (type === undefined) out.push(...each(present(schema, ['minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'required']), 'loosened', 'not read without a type'))
  if (type === 'array') out.push(...each(present(schema, ['minItems', 'maxItems']), 'loosened', 'not read without items'))
  if (type === 'object') out.push(...each(present(schema, ['required']), 'loosened', 'not read without properties'))
  if (type === 'number') out.push({ keyword: '', verdict: 'loosened', why: NUMBER_OVERFLOW })
  if (type === 'object' || Object.keys(schema).length === 0) out.push({ keyword: '', verdict: 'loosened', why: ANY_OBJECT })
  else if (type === undefined) out.push({ keyword: '', verdict: 'loosened', why: ANY_VALUE })
  return out
}

/** A keyword's relevance to one type of a `type` list, which the converter visits one type at a time. */
const concerns = (keyword: string, type: string): boolean =>
  STRING.includes(keyword) ? type === 'string' : NUMBER.includes(keyword) ? type === 'number' || type === 'integer' : ARRAY.includes(keyword) ? type === 'array' : OBJECT.includes(keyword) ? type === 'object' : true

const jsonType = (value: Json): string => value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value

/** A "#/..." pointer followed as resolve_refs follows it: split on "/", nothing unescaped. */
function follow (form: Json, ref: string): { target: Json } | { missing: string, within: Json } {
  let target: Json = form
  for (const sel of ref.slice(2).split('/')) {
    const next: Json | undefined = Array.isArray(target) ? target[Number(sel)] : isObject(target) && Object.hasOwn(target, sel) ? target[sel] : undefined
    if (next === undefined) return { missing: sel, within: target }
    target = next
  }
  return { target }
}

/**
 * resolve_refs, as it walks the whole form before anything is compiled: every member named "$ref"
 * is a reference (nothing inside its holder is looked at), "#/..." pointers are split on "/" and
 * followed without undoing ~0, ~1 or %-escapes; a reference it never met compiles as `{}`, any object.
 */
function llamaRefs (form: Json): Judgement[] {
  const out: Judgement[] = []
  const met = new Set<string>()
  const refused = (at: string, why: string): void => { out.push({ keyword: `${at.slice(1)}${at === '' ? '' : '/'}$ref`, verdict: 'refused', why: `the converter fails: "${why}"` }) }
  const visit = (node: Json, at: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}/${i}`))
    if (!isObject(node)) return
    if (!Object.hasOwn(node, '$ref')) {
      for (const [key, value] of Object.entries(node)) visit(value, `${at}/${escape(key)}`)
      return
    }
    const ref = node['$ref']
    if (typeof ref !== 'string') return refused(at, `[json.exception.type_error.302] type must be string, but is ${jsonType(ref as Json)}`)
    if (met.has(ref) || ref.startsWith('https://')) return
    if (!ref.startsWith('#/')) return refused(at, `Unsupported ref: ${ref}`)
    const found = follow(form, ref)
    if ('missing' in found) return refused(at, `Error resolving ref ${ref}: ${found.missing} not in ${JSON.stringify(found.within).slice(0, 40)}…`)
    met.add(ref)
  }
  visit(form, '')
  if (out.length > 0) return out
  walk(form, (schema, place) => {
    const ref = isObject(schema) ? schema['$ref'] : undefined
    if (typeof ref === 'string' && ref.startsWith('#/') && !met.has(ref)) {
      const keyword = `${place.pointer.slice(1)}${place.pointer === '' ? '' : '/'}$ref`
      out.push({ keyword, verdict: 'loosened', why: `never resolved (it stands inside a schema holding a $ref): ${ANY_OBJECT}` })
      // Seen with llama.cpp b10257: a string its target admits is never written there.
      const found = follow(form, ref)
      if (!('target' in found && isObject(found.target) && found.target['type'] === 'object')) out.push({ keyword, verdict: 'tightened', why: 'never resolved (it stands inside a schema holding a $ref): only an object is written, so a value of another type its target admits never is' })
    }
  })
  return out
}

export const llamaCpp = tabled('llama-cpp', 'llama.cpp (llama-server), Ollama (GGUF runner)', 'llama.cpp common/json-schema-to-grammar.cpp at 011c6c3c, src/llama-grammar.cpp at 04332939 (source read 2026-12-01); held to llama.cpp b10257 (@fugood/llama.node 1.7.15) in npm test', {
  loosened: LLAMA_LOOSENED,
  harmless,
  refused: [],
  formats: new Set(['time', 'uuid', 'uuid1', 'uuid2', 'uuid3', 'uuid4', 'uuid5']),
  approximate: { date: 'any month has 31 days: 2021-02-30 passes', 'date-time': 'any month has 31 days: 2021-02-30T00:00:00Z passes' },
  oneOf: 'loosened',
  booleans: (place) => under(place) !== 'additionalProperties',
  // The alternatives of an allOf are not visited: only their properties are.
  reads: reading(['$ref', 'oneOf', 'anyOf'], ['properties', 'additionalProperties', 'items', 'prefixItems']),
  extra (schema) {
    const types = schema['type']
    if (!Array.isArray(types)) return llamaVisit(schema)
    const out: Judgement[] = []
    for (const type of types) {
      for (const j of llamaVisit({ ...schema, type })) {
        if (concerns(j.keyword, String(type)) && !out.some((o) => o.keyword === j.keyword && o.verdict === j.verdict)) out.push(j)
      }
    }
    return out
  },
  limits: llamaRefs
})
