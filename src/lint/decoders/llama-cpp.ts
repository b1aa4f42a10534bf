// llama.cpp: common/json-schema-to-grammar.cpp (common_schema_converter::visit) builds a GBNF
// grammar; src/llama-grammar.cpp parses it, and the server answers 400 when either fails.
import { isObject, listOf, type JsonObject } from '../schema.ts'
import type { Judgement } from '../decoders.ts'
import { ARRAY, ASSERTIONS, beside, each, isString, NUMBER, num, OBJECT, present, reading, STRING, tabled, typeBesideLiterals, under, undeclared } from './common.ts'

const LLAMA_LOOSENED = ['multipleOf', 'not', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains',
  'minContains', 'maxContains', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'unevaluatedItems',
  'unevaluatedProperties']
// llama-grammar.cpp MAX_REPETITION_THRESHOLD: a larger lower bound of `{m,n}` fails to parse; a
// larger upper one is dropped; and the parser refuses when the repetition count reaches it.
const REPETITIONS = 2000
// Escapes its GBNF parser takes (parse_char), outside and inside a character class; the converter
// unescapes regex metacharacters outside classes and copies every other escape verbatim.
const GBNF_ESCAPES = 'xuUtrn\\"[]-'
const REGEX_META = '^$.[]()|{}*+?'

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

/** `{min,max}` as llama-grammar.cpp parses it: refused past the threshold, or the upper bound dropped. */
function repetition (min: number, max: number | undefined, names: readonly [string, string]): Judgement[] {
  if (min > REPETITIONS) return [{ keyword: names[0], verdict: 'refused', why: `the grammar parser refuses a repetition of more than ${REPETITIONS}` }]
  const upper = max !== undefined && max > REPETITIONS ? undefined : max
  const total = upper !== undefined && upper > 0 ? upper : min
  if (total >= REPETITIONS) return [{ keyword: upper === undefined ? names[0] : names[1], verdict: 'refused', why: `the grammar parser refuses a repetition of ${REPETITIONS} or more` }]
  return upper === max ? [] : [{ keyword: names[1], verdict: 'loosened', why: `an upper bound above ${REPETITIONS} is dropped by the grammar parser` }]
}

/** One `visit` of the converter, for a schema whose `type` is absent or a single name. */
function llamaVisit (schema: JsonObject): Judgement[] {
  const out = llamaBranch(schema)
  if ('allOf' in schema && !out.some((j) => j.keyword === 'allOf')) out.push({ keyword: 'allOf', verdict: 'loosened', why: 'not read beside this schema\'s type' })
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
    if (!('additionalProperties' in schema)) out.push({ keyword: '', verdict: 'tightened', why: 'members the form does not name are never produced' })
    return out
  }
  if ((loose('object') || type === 'string') && 'allOf' in schema) {
    // Only the properties (all made required) and enums of each alternative are merged.
    const merged = type !== 'string' && listOf(schema['allOf']).every((alt) => isObject(alt) &&
      ('$ref' in alt || ('properties' in alt && Object.keys(alt).every((key) => !ASSERTIONS.has(key) || ['properties', 'required'].includes(key) || (key === 'type' && alt[key] === 'object')))))
    return merged
      ? [{ keyword: 'allOf', verdict: 'tightened', why: 'the properties of its alternatives are merged, each made required' }]
      : [{ keyword: 'allOf', verdict: 'loosened', why: 'only the properties and enums of its alternatives are merged, into an object' }]
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
    return [...out, ...each(present(schema, ['minLength', 'maxLength', 'format']), 'loosened', 'not read beside pattern')]
  }
  if (loose('string') && isString(schema['format']) && /^(uuid[1-5]?|date|time|date-time)$/.test(schema['format'])) {
    return each(present(schema, ['minLength', 'maxLength']), 'loosened', 'not read beside format')
  }
  if (type === 'string') return repetition(num(schema, 'minLength') ?? 0, num(schema, 'maxLength'), ['minLength', 'maxLength'])
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
  return out
}

/** A keyword's relevance to one type of a `type` list, which the converter visits one type at a time. */
const concerns = (keyword: string, type: string): boolean =>
  STRING.includes(keyword) ? type === 'string' : NUMBER.includes(keyword) ? type === 'number' || type === 'integer' : ARRAY.includes(keyword) ? type === 'array' : OBJECT.includes(keyword) ? type === 'object' : true

export const llamaCpp = tabled('llama-cpp', 'llama.cpp (llama-server), Ollama (GGUF runner)', {
  loosened: LLAMA_LOOSENED,
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
  }
})
