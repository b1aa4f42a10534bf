// What each constrained decoder does with each keyword of a form, in its context. Sources, dates
// and what was checked against the real converters: docs/forms.md.
import { disjointOneOf } from './unions.ts'
import { anchored, converterWalk, IRREGULAR } from './xgrammar.ts'
import { isObject, listOf, literals, ownTypes, refTarget, resolve, typeOf, type Json, type JsonObject, type Place } from './schema.ts'
import type { DecoderName } from './types.ts'

/**
 * enforced: the actor never produces what this keyword forbids.
 * tightened: the actor produces only part of what the keyword admits; nothing it produces is rejected.
 * loosened: the decoder drops or weakens the keyword; the actor may produce what the address rejects.
 * refused: the runtime refuses the form; an actor using it cannot act.
 */
export type Verdict = 'enforced' | 'tightened' | 'loosened' | 'refused'

export interface Judgement {
  /** The keyword judged, or '' for the schema as a whole. */
  readonly keyword: string
  readonly verdict: Exclude<Verdict, 'enforced'>
  readonly why: string
}

/** What a profile may ask about the form around a schema. */
export interface Context {
  readonly form: Json
  /** Pointers of the `$ref`s that close or stand on a cycle (draft §4.2). */
  readonly cyclic: ReadonlySet<string>
}

export interface Profile {
  readonly name: DecoderName
  /** The runtimes that use it. */
  readonly runtimes: string
  readonly judge: (schema: Json, place: Place, context: Context) => Judgement[]
  /** Limits on the form as a whole. */
  readonly limits?: (form: Json) => Judgement[]
}

export const STRING = ['minLength', 'maxLength', 'pattern', 'format']
export const NUMBER = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
export const ARRAY = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems']
export const OBJECT = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties',
  'maxProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties']
// `if` alone admits everything: dropping it (with its then and else) is judged at then and else.
const CONDITIONAL = ['not', 'then', 'else']
/** Every keyword that constrains a value. */
export const ASSERTIONS = new Set(['type', 'enum', 'const', ...STRING, ...NUMBER, ...ARRAY, ...OBJECT, ...CONDITIONAL,
  'allOf', 'anyOf', 'oneOf', '$ref'])

const num = (schema: JsonObject, key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
// `uniqueItems` asks for nothing when false or when at most one item is admitted: dropping it loosens nothing.
const present = (schema: JsonObject, keys: readonly string[]): string[] => keys.filter((key) => key in schema &&
  !(key === 'uniqueItems' && (schema[key] === false || (num(schema, 'maxItems') ?? 2) <= 1)))
const each = (keys: readonly string[], verdict: Judgement['verdict'], why: string): Judgement[] => keys.map((keyword) => ({ keyword, verdict, why }))

/** Whether a schema admits null (as openai-node decides it: a $ref or a condition counts as no). */
function nullable (schema: Json): boolean {
  if (typeof schema === 'boolean') return schema
  if (!isObject(schema) || '$ref' in schema || CONDITIONAL.some((key) => key in schema) || 'if' in schema) return false
  if (ownTypes(schema)?.has('null') === false) return false
  const branches = (key: string): Json[] => [...listOf(schema[key])]
  if ('allOf' in schema && !branches('allOf').every(nullable)) return false
  if ('anyOf' in schema && !branches('anyOf').some(nullable)) return false
  return !('oneOf' in schema) || branches('oneOf').filter(nullable).length === 1
}

/** A literal of `enum`/`const` that its sibling `type` does not admit. */
const typeBesideLiterals = (schema: JsonObject): boolean => {
  const values = literals(schema)
  if (values === undefined || !('type' in schema)) return false
  const types = new Set(Array.isArray(schema['type']) ? schema['type'] : [schema['type']])
  return values.some((value) => {
    const t = typeOf(value)
    return !(types.has(t) || (t === 'integer' && types.has('number')))
  })
}

function oneOf (schema: JsonObject, context: Context, verdict: 'loosened' | 'refused', why: string): Judgement[] {
  if (!('oneOf' in schema) || disjointOneOf(context.form, schema)) return []
  return [{ keyword: 'oneOf', verdict, why }]
}

// ---------------------------------------------------------------------------------------------
// XGrammar, as @mlc-ai/web-xgrammar 0.1.27 compiles it (strict mode, the default of vLLM and
// SGLang): src/lint/xgrammar.ts walks the form as its converter does, once per lint; every
// judgement is checked against the converter by test/lint-xgrammar.test.ts.
const walks = new WeakMap<Context, Map<string, Judgement[]>>()
const xgrammar: Profile = {
  name: 'xgrammar',
  runtimes: 'vLLM, SGLang, Ollama (MLX runner), MLC',
  judge (_, place, context) {
    let said = walks.get(context)
    if (said === undefined) walks.set(context, said = converterWalk(context.form))
    return said.get(place.pointer) ?? []
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Structured Outputs, strict: openai-node's toStrictJsonSchema and the API's documented subset.
const OPENAI_REFUSED = ['allOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'patternProperties',
  'propertyNames', 'minProperties', 'maxProperties', 'prefixItems', 'uniqueItems', 'contains', 'minContains', 'maxContains',
  'unevaluatedItems', 'unevaluatedProperties', '$anchor', '$dynamicAnchor', '$dynamicRef']
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])
const ANNOTATIONS = new Set(['$comment', 'default', 'description', 'examples', 'readOnly', 'title', 'writeOnly', 'deprecated'])
/** The root schema, or the one a root that is only a $ref names (the SDK inlines it). */
function rootObject (form: Json): JsonObject {
  let here = form
  for (let hops = 0; hops < 8 && isObject(here) && typeof here['$ref'] === 'string'; hops++) {
    const target = refTarget(here['$ref'])
    const to = target === undefined ? undefined : resolve(form, target)
    if (to === undefined) break
    here = to
  }
  return isObject(here) ? here : {}
}

const openai: Profile = {
  name: 'openai-strict',
  runtimes: 'OpenAI API (response_format json_schema strict, codex --output-schema)',
  judge (schema, place, context) {
    if (typeof schema === 'boolean') {
      const under = place.pointer.split('/').at(-1)
      return under === 'additionalProperties' ? [] : [{ keyword: '', verdict: 'refused', why: 'a boolean schema cannot be represented' }]
    }
    if (!isObject(schema)) return []
    const out: Judgement[] = []
    const root = place.role === 'root' ? rootObject(context.form) : undefined
    if (root !== undefined && !(ownTypes(root)?.size === 1 && ownTypes(root)?.has('object'))) {
      out.push({ keyword: 'type', verdict: 'refused', why: 'the root must be "type": "object"' })
    }
    if (root !== undefined && 'anyOf' in root) out.push({ keyword: 'anyOf', verdict: 'refused', why: 'the root may not be a union' })
    // The SDK refuses these whatever their value, even uniqueItems: false.
    out.push(...each(OPENAI_REFUSED.filter((key) => key in schema), 'refused', 'not supported in strict mode'))
    out.push(...each(present(schema, ['oneOf']), 'refused', 'strict mode takes anyOf, not oneOf'))
    if ('$ref' in schema && Object.keys(schema).some((key) => key !== '$ref' && key !== '$defs' && !ANNOTATIONS.has(key) && !(place.role === 'root' && ['$schema', '$id'].includes(key)))) {
      out.push({ keyword: '$ref', verdict: 'refused', why: 'a $ref may stand only beside annotations' })
    }
    const objectLike = ownTypes(schema)?.has('object') ?? OBJECT.some((key) => key in schema)
    if (objectLike) {
      const extra = schema['additionalProperties']
      if (extra === undefined) out.push({ keyword: '', verdict: 'tightened', why: 'the SDK closes the object (additionalProperties: false)' })
      else if (extra !== false) out.push({ keyword: 'additionalProperties', verdict: 'refused', why: 'every object must set additionalProperties: false' })
      const named = isObject(schema['properties']) ? schema['properties'] : {}
      const required = listOf(schema['required'])
      for (const name of required) if (typeof name === 'string' && !Object.hasOwn(named, name)) out.push({ keyword: 'required', verdict: 'refused', why: `"${name}" is required but not in properties` })
      for (const [name, value] of Object.entries(named)) {
        if (required.includes(name)) continue
        out.push(nullable(value)
          ? { keyword: 'required', verdict: 'tightened', why: `"${name}" becomes required: the actor always sends it, null when it has nothing` }
          : { keyword: 'required', verdict: 'refused', why: `"${name}" is optional: every property must be required (or admit null)` })
      }
    }
    if ((ownTypes(schema)?.has('array') ?? false) && !('items' in schema)) out.push({ keyword: '', verdict: 'refused', why: 'an array needs items' })
    if (typeof schema['format'] === 'string' && !OPENAI_FORMATS.has(schema['format'])) out.push({ keyword: 'format', verdict: 'refused', why: 'not among the nine documented formats' })
    if (typeof schema['pattern'] === 'string' && IRREGULAR.test(schema['pattern'])) out.push({ keyword: 'pattern', verdict: 'refused', why: 'no lookaround or backreferences' })
    out.push(...each(present(schema, ['minLength', 'maxLength']), 'loosened', 'not among the string keywords documented for strict mode'))
    return out
  },
  limits (form) {
    const out: Judgement[] = []
    let properties = 0
    let values = 0
    let chars = 0
    let nesting = 0
    const visit = (schema: Json, level: number): void => {
      if (!isObject(schema)) return
      nesting = Math.max(nesting, level)
      if (isObject(schema['properties'])) {
        for (const [name, value] of Object.entries(schema['properties'])) {
          properties++
          chars += name.length
          visit(value, level + 1)
        }
      }
      const list = literals(schema) ?? []
      values += Array.isArray(schema['enum']) ? list.length : 0
      for (const value of list) if (typeof value === 'string') chars += value.length
      const strings = list.filter((value): value is string => typeof value === 'string')
      if (strings.length > 250 && strings.reduce((n, s) => n + s.length, 0) > 15_000) {
        out.push({ keyword: '', verdict: 'refused', why: 'a string enum of more than 250 values may total at most 15,000 characters' })
      }
      for (const key of ['items', 'additionalProperties']) visit(schema[key] as Json, level + 1)
      for (const key of ['anyOf', 'oneOf', 'allOf']) for (const item of listOf(schema[key])) visit(item, level)
      for (const item of Object.values(isObject(schema['$defs']) ? schema['$defs'] : {})) visit(item, level)
    }
    visit(form, 0)
    if (nesting > 10) out.push({ keyword: '', verdict: 'refused', why: `${nesting} levels of nesting; at most 10` })
    if (properties > 5000) out.push({ keyword: '', verdict: 'refused', why: `${properties} properties; at most 5,000` })
    if (values > 1000) out.push({ keyword: '', verdict: 'refused', why: `${values} enum values; at most 1,000` })
    if (chars > 120_000) out.push({ keyword: '', verdict: 'refused', why: `${chars} characters of property names, enum and const values; at most 120,000` })
    return out
  }
}

// ---------------------------------------------------------------------------------------------
// Anthropic structured outputs: what @anthropic-ai/sdk's transformJSONSchema keeps, moves into
// the description, or throws on; and what the API refuses (recursive schemas).
const ANTHROPIC_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'])
const anthropic: Profile = {
  name: 'anthropic',
  runtimes: 'Anthropic API (output_format, claude -p --json-schema)',
  judge (schema, place, context) {
    if (typeof schema === 'boolean') {
      const under = place.pointer.split('/').at(-1)
      return under === 'additionalProperties' ? [] : [{ keyword: '', verdict: 'refused', why: 'the SDK needs a type on every schema, and a boolean schema has none' }]
    }
    if (!isObject(schema)) return []
    if ('$ref' in schema) {
      const out = each(Object.keys(schema).filter((key) => ASSERTIONS.has(key) && key !== '$ref'), 'loosened', 'the SDK keeps only $ref (and $defs) beside a $ref')
      if (context.cyclic.has(`${place.pointer}/$ref`)) out.push({ keyword: '$ref', verdict: 'refused', why: 'recursive schemas are not supported' })
      return out
    }
    const values = literals(schema)
    const kept = new Set<string>(['$defs', 'description', 'title'])
    if (Array.isArray(schema['enum']) && schema['enum'].length > 0 && schema['enum'].every((v) => v === null || typeof v !== 'object')) kept.add('enum')
    if ('const' in schema && (schema['const'] === null || typeof schema['const'] !== 'object')) kept.add('const')
    const literal = kept.has('enum') || kept.has('const')
    const union = ['anyOf', 'oneOf', 'allOf'].find((key) => Array.isArray(schema[key]))
    if (union !== undefined) kept.add(union)
    if (!literal && union === undefined && !('type' in schema)) {
      return [{ keyword: '', verdict: 'refused', why: 'the SDK throws on a schema without type, anyOf, oneOf, allOf, enum or const' }]
    }
    const type = literal ? undefined : schema['type']
    if (type !== undefined) kept.add('type')
    if (type === 'object') ['properties', 'required', 'additionalProperties'].forEach((key) => kept.add(key))
    if (type === 'string' && typeof schema['format'] === 'string' && ANTHROPIC_FORMATS.has(schema['format'])) kept.add('format')
    if (type === 'array') {
      kept.add('items')
      if (schema['minItems'] === 0 || schema['minItems'] === 1) kept.add('minItems')
    }
    const out: Judgement[] = []
    for (const key of Object.keys(schema)) {
      if (!ASSERTIONS.has(key) || kept.has(key)) continue
      if (key === 'type' && values !== undefined && !typeBesideLiterals(schema)) continue
      out.push({ keyword: key, verdict: 'loosened', why: 'the SDK moves it into the description' })
    }
    if (union === 'oneOf') out.push(...oneOf(schema, context, 'loosened', 'the SDK writes it as anyOf: a value matching two alternatives is produced'))
    if (type === 'object' && schema['additionalProperties'] !== false) out.push({ keyword: '', verdict: 'tightened', why: 'the SDK closes the object (additionalProperties: false)' })
    return out
  }
}

// ---------------------------------------------------------------------------------------------
// The profiles below were verified by reading the converters' source (Gemini: its documentation);
// no converter of theirs runs under Node. Sources, commits and what stays unknown: docs/forms.md.
interface Table {
  /** Keywords dropped wherever they stand. */
  readonly loosened: readonly string[]
  /** Keywords refused whenever present, whatever their value. */
  readonly refused: readonly string[]
  /** Formats enforced; others are loosened, or refused when `refusesFormats`. */
  readonly formats: ReadonlySet<string>
  /** Formats produced by a pattern looser than the address's check, with an example. */
  readonly approximate?: Readonly<Record<string, string>>
  readonly refusesFormats?: boolean
  readonly oneOf: 'loosened' | 'refused'
  /** Whether a boolean subschema in this place is refused. */
  readonly booleans?: (place: Place) => boolean
  /** Whether the converter compiles a schema in this place; what it never reads is judged where it stands. */
  readonly reads?: (place: Place) => boolean
  readonly extra?: (schema: JsonObject, place: Place, context: Context) => Judgement[]
}

const under = (place: Place): string => place.pointer.split('/').at(-1) ?? ''
const LISTS = ['properties', 'patternProperties', 'prefixItems', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas']
/** The keyword of its parent a subschema stands under. */
function keywordOf (place: Place): string {
  const tokens = place.pointer.split('/')
  const above = tokens.at(-2) ?? ''
  return LISTS.includes(above) ? above : under(place)
}

/**
 * A converter that reads one keyword of a schema (`first` of its parent, when present) and
 * otherwise the `others`: whether it compiles the subschema in this place. Definitions are read
 * where a $ref leads.
 */
const reading = (first: readonly string[], others: readonly string[]) => (place: Place): boolean => {
  if (place.role === 'root' || place.role === 'definition') return true
  const parent = place.parent ?? {}
  const winner = first.find((key) => key in parent)
  const keyword = keywordOf(place)
  return winner === undefined ? others.includes(keyword) && !(keyword === 'prefixItems' && 'items' in parent) : keyword === winner
}

function tabled (name: DecoderName, runtimes: string, table: Table): Profile {
  return {
    name,
    runtimes,
    judge (schema, place, context) {
      if (table.reads?.(place) === false) return []
      if (typeof schema === 'boolean') {
        return table.booleans?.(place) === true ? [{ keyword: '', verdict: 'refused', why: 'the converter refuses a boolean schema here' }] : []
      }
      if (!isObject(schema)) return []
      const out = [
        ...each(present(schema, table.loosened), 'loosened', 'not enforced'),
        ...each(table.refused.filter((key) => key in schema), 'refused', 'not supported'),
        ...oneOf(schema, context, table.oneOf, table.oneOf === 'refused' ? 'oneOf is taken only when its alternatives are disjoint' : 'taken as anyOf: a value matching two alternatives is produced')
      ]
      const format = schema['format']
      if (typeof format === 'string' && !table.formats.has(format)) {
        const approximate = table.approximate?.[format]
        out.push(approximate !== undefined
          ? { keyword: 'format', verdict: 'loosened', why: `checked by an approximate pattern (${approximate})` }
          : { keyword: 'format', verdict: table.refusesFormats === true ? 'refused' : 'loosened', why: `format "${format}" is not supported` })
      }
      return [...out, ...(table.extra?.(schema, place, context) ?? [])]
    }
  }
}

const LITERAL_BESIDE = ['allOf', 'anyOf', 'oneOf', '$ref', 'const', 'enum']
/**
 * Assertions beside `winner` that a converter reading only the winner leaves out. Beside enum or
 * const only applicators count: other keywords loosen nothing unless a literal breaks them.
 */
const beside = (schema: JsonObject, winner: string, keep: readonly string[], table: readonly string[]): Judgement[] =>
  each(present(schema, [...ASSERTIONS]).filter((key) => key !== winner && !keep.includes(key) && !table.includes(key) &&
    (!['const', 'enum'].includes(winner) || LITERAL_BESIDE.includes(key))), 'loosened', `not read beside ${winner}`)

/** `required` names the converter never produces: those missing from `properties`. */
function undeclared (schema: JsonObject): Judgement[] {
  const named = isObject(schema['properties']) ? schema['properties'] : {}
  return listOf(schema['required']).some((name) => typeof name === 'string' && !Object.hasOwn(named, name))
    ? [{ keyword: 'required', verdict: 'loosened', why: 'a required name missing from properties is never produced' }]
    : []
}

// ---------------------------------------------------------------------------------------------
// llama.cpp: common/json-schema-to-grammar.cpp (common_schema_converter::visit) builds a GBNF
// grammar; src/llama-grammar.cpp parses it, and the server answers 400 when either fails.
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

const isString = (value: Json | undefined): value is string => typeof value === 'string'

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

const llamaCpp = tabled('llama-cpp', 'llama.cpp (llama-server), Ollama (GGUF runner)', {
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

// ---------------------------------------------------------------------------------------------
// Gemini: the API's own documentation; @google/genai passes responseJsonSchema through unchanged.
const gemini = tabled('gemini', 'Gemini API (responseJsonSchema)', {
  loosened: ['minLength', 'maxLength', 'pattern', 'multipleOf', 'exclusiveMinimum', 'exclusiveMaximum', 'allOf', 'not', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'minProperties', 'maxProperties', 'patternProperties', 'propertyNames',
    'unevaluatedItems', 'unevaluatedProperties'],
  refused: ['uniqueItems', 'contains', 'minContains', 'maxContains'],
  formats: new Set(['date-time', 'date', 'time']),
  oneOf: 'loosened',
  extra (schema, place, context) {
    // Recursion is taken only through members that may be left out.
    return '$ref' in schema && context.cyclic.has(`${place.pointer}/$ref`) && place.role === 'value' && !place.optional
      ? [{ keyword: '$ref', verdict: 'refused', why: 'recursion is supported only through optional members' }]
      : []
  }
})

// ---------------------------------------------------------------------------------------------
// outlines-core: src/json_schema/parsing.rs (Parser::to_regex) builds one regular expression; the
// first of OUTLINES_FIRST present decides it, then `type`; anything else is refused.
const OUTLINES_FIRST = ['properties', 'allOf', 'anyOf', 'oneOf', 'prefixItems', 'enum', 'const', '$ref']
const OUTLINES_LOOSENED = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'not', 'then', 'else',
  'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'patternProperties',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']

/** The verdict on a `$ref` closing a cycle: past three nested refs the property holding it is left out. */
function outlinesRecursion (form: Json, pointer: string): Judgement {
  const tokens = pointer.split('/')
  const at = tokens.lastIndexOf('properties', -2)
  const holder = at > 0 ? resolve(form, tokens.slice(0, at).join('/')) : undefined
  const name = tokens[at + 1]?.replaceAll('~1', '/').replaceAll('~0', '~')
  if (isObject(holder) && name !== undefined && !listOf(holder['required']).includes(name)) {
    return { keyword: '$ref', verdict: 'tightened', why: 'recursion is cut after three levels' }
  }
  return { keyword: '$ref', verdict: 'loosened', why: 'recursion is cut after three levels by leaving out the member holding it, even a required one (refused when none holds it)' }
}

const outlines = tabled('outlines', 'Outlines (outlines-core), vLLM and others with the outlines backend', {
  loosened: OUTLINES_LOOSENED,
  refused: [],
  formats: new Set(['uuid', 'email', 'uri']),
  approximate: { date: '2021-02-30 passes', 'date-time': 'no offset needed, 2021-02-30T00:00:00 passes', time: 'no offset needed: 12:00:00 passes' },
  refusesFormats: true,
  oneOf: 'loosened',
  // additionalProperties is read only on an object without properties.
  booleans: () => true,
  reads: reading(OUTLINES_FIRST, ['items', 'additionalProperties']),
  extra (schema, place, context) {
    const winner = OUTLINES_FIRST.find((key) => key in schema)
    if (winner === undefined && !('type' in schema)) {
      return Object.keys(schema).length === 0 ? [] : [{ keyword: '', verdict: 'refused', why: `the converter needs type or one of ${OUTLINES_FIRST.join(', ')}` }]
    }
    const out: Judgement[] = []
    if (winner !== undefined) {
      out.push(...beside(schema, winner, ['type', 'additionalProperties', ...(winner === 'properties' ? ['required'] : [])], OUTLINES_LOOSENED))
      const types = ownTypes(schema)
      const produced = winner === 'properties' ? 'object' : winner === 'prefixItems' ? 'array' : undefined
      if ('type' in schema && (['allOf', 'anyOf', 'oneOf', '$ref'].includes(winner) || (produced !== undefined && types?.has(produced) === false) || typeBesideLiterals(schema))) {
        out.push({ keyword: 'type', verdict: 'loosened', why: `not read beside ${winner}` })
      }
      if ('additionalProperties' in schema && winner !== 'properties') out.push({ keyword: 'additionalProperties', verdict: 'loosened', why: `not read beside ${winner}` })
      if (winner === 'properties') {
        out.push(...undeclared(schema))
        if (schema['additionalProperties'] !== false) out.push({ keyword: '', verdict: 'tightened', why: 'members the form does not name are never produced' })
      }
      if (winner === 'allOf' && listOf(schema['allOf']).length > 1) out.push({ keyword: 'allOf', verdict: 'loosened', why: 'its alternatives are concatenated, which is not one JSON value' })
      if (winner === '$ref' && context.cyclic.has(`${place.pointer}/$ref`)) out.push(outlinesRecursion(context.form, place.pointer))
      return out
    }
    if ((num(schema, 'minLength') ?? 0) > (num(schema, 'maxLength') ?? Infinity)) out.push({ keyword: 'minLength', verdict: 'refused', why: 'the converter refuses minLength above maxLength' })
    if ('minLength' in schema || 'maxLength' in schema) return [...out, ...each(present(schema, ['pattern', 'format']), 'loosened', 'not read beside minLength or maxLength')]
    const pattern = schema['pattern']
    if (isString(pattern)) {
      if (/\(\?<?[=!]|\\[1-9]|\\k</.test(pattern)) return [{ keyword: 'pattern', verdict: 'refused', why: 'its regex engine has no lookaround or backreferences' }]
      if (/\\[dw]/.test(pattern)) out.push({ keyword: 'pattern', verdict: 'loosened', why: '\\d and \\w match Unicode digits and letters' })
      if (!anchored(pattern)) out.push({ keyword: 'pattern', verdict: 'tightened', why: 'matched as if anchored at both ends' })
      out.push(...each(present(schema, ['format']), 'loosened', 'not read beside pattern'))
    }
    if (ownTypes(schema)?.has('object') === true) {
      out.push(...each(present(schema, ['required']), 'loosened', 'not read without properties'))
    }
    return out
  }
})

// ---------------------------------------------------------------------------------------------
// llguidance: parser/src/json/schema.rs refuses every known keyword outside IMPLEMENTED (unless
// lenient, which its callers do not set by default); compiler.rs builds the grammar.
const llguidance = tabled('llguidance', 'llguidance (vLLM guidance backend, llama.cpp with LLGuidance, Azure)', {
  loosened: [],
  refused: ['not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'uniqueItems', 'contains', 'minContains',
    'maxContains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'],
  formats: new Set(['duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'uri']),
  approximate: { date: 'February has 29 days every year: 2021-02-29 passes', 'date-time': '2021-02-29 passes, and a leap second at any minute', time: 'a leap second at any minute: 12:00:60Z passes' },
  refusesFormats: true,
  oneOf: 'refused',
  extra (schema) {
    if (typeof schema['pattern'] === 'string' && /\(\?<?[=!]/.test(schema['pattern'])) return [{ keyword: 'pattern', verdict: 'refused', why: 'lookaround is not supported' }]
    // compiler.rs: min/maxProperties only count members beyond the required ones, or say "at
    // least / at most one" of a closed object's optional members.
    const named = Object.keys(isObject(schema['properties']) ? schema['properties'] : {})
    const required = named.filter((name) => listOf(schema['required']).includes(name)).length
    const min = Math.max((num(schema, 'minProperties') ?? 0) - required, 0)
    const max = num(schema, 'maxProperties')
    const rest = max === undefined ? undefined : Math.max(max - required, 0)
    if (named.length === required || (min === 0 && rest === undefined)) return []
    const oneAtMost = min <= 1 && (rest ?? 1) === 1 && !('patternProperties' in schema) && schema['additionalProperties'] === false
    return oneAtMost ? [] : each(present(schema, ['minProperties', 'maxProperties']), 'refused', 'supported only when every named property is required')
  }
})

export const PROFILES: readonly Profile[] = [openai, anthropic, gemini, llamaCpp, xgrammar, outlines, llguidance]
