// What each constrained decoder does with each keyword of a form, in its context. Sources, dates
// and what was checked against the real converters: docs/forms.md.
import { disjointOneOf } from './unions.ts'
import { converterWalk, IRREGULAR } from './xgrammar.ts'
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
// The profiles below follow the decoders' documentation and source (docs/forms.md); no converter
// of theirs runs under Node.
interface Table {
  /** Keywords dropped wherever they stand. */
  readonly loosened: readonly string[]
  readonly refused: readonly string[]
  /** Formats enforced; others are loosened, or refused when `refusesFormats`. */
  readonly formats: ReadonlySet<string>
  readonly refusesFormats?: boolean
  readonly oneOf: 'loosened' | 'refused'
  readonly extra?: (schema: JsonObject, place: Place, context: Context) => Judgement[]
}

function tabled (name: DecoderName, runtimes: string, table: Table): Profile {
  return {
    name,
    runtimes,
    judge (schema, place, context) {
      if (!isObject(schema)) return []
      const out = [
        ...each(present(schema, table.loosened), 'loosened', 'not enforced'),
        ...each(present(schema, table.refused), 'refused', 'not supported'),
        ...oneOf(schema, context, table.oneOf, table.oneOf === 'refused' ? 'oneOf is taken only when its alternatives are disjoint' : 'taken as anyOf: a value matching two alternatives is produced')
      ]
      if (typeof schema['format'] === 'string' && !table.formats.has(schema['format'])) {
        out.push({ keyword: 'format', verdict: table.refusesFormats === true ? 'refused' : 'loosened', why: `format "${schema['format']}" is not supported` })
      }
      return [...out, ...(table.extra?.(schema, place, context) ?? [])]
    }
  }
}

const llamaCpp = tabled('llama-cpp', 'llama.cpp (llama-server), Ollama (GGUF runner)', {
  loosened: ['multipleOf', 'not', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains',
    'minContains', 'maxContains', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'prefixItems',
    'unevaluatedItems', 'unevaluatedProperties'],
  refused: [],
  formats: new Set(['date', 'time', 'date-time', 'uuid']),
  oneOf: 'loosened',
  extra (schema, place) {
    const out: Judgement[] = []
    const types = ownTypes(schema)
    if (types === undefined || types.has('number')) {
      if (!(types?.size === 1 && types.has('integer'))) out.push(...each(present(schema, ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']), 'loosened', 'number bounds are not enforced (integer bounds are)'))
    }
    if ('pattern' in schema || 'format' in schema) out.push(...each(present(schema, ['minLength', 'maxLength']), 'loosened', 'dropped beside pattern or format'))
    if ('allOf' in schema && !(ownTypes(schema)?.has('object') ?? false)) out.push({ keyword: 'allOf', verdict: 'loosened', why: 'only the properties of object alternatives are merged' })
    if ('anyOf' in schema) out.push(...each(present(schema, ['properties', 'required']), 'loosened', 'ignored beside anyOf'))
    // llama-server decodes unconstrained when its grammar fails to parse, as it does for these.
    if (place.role !== 'root' && (num(schema, 'maxLength') ?? 0) >= 2000) out.push({ keyword: 'maxLength', verdict: 'loosened', why: 'the grammar fails to parse and the server decodes unconstrained' })
    if (isObject(schema['properties']) && !('additionalProperties' in schema)) out.push({ keyword: '', verdict: 'tightened', why: 'members the form does not name are never produced' })
    return out
  }
})

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

const outlines = tabled('outlines', 'Outlines (outlines-core), vLLM and others with the outlines backend', {
  loosened: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'not', 'then', 'else',
    'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'patternProperties',
    'propertyNames', 'allOf', 'unevaluatedItems', 'unevaluatedProperties'],
  refused: [],
  formats: new Set(['date-time', 'date', 'time', 'uuid', 'email', 'uri']),
  refusesFormats: true,
  oneOf: 'loosened',
  extra (schema, place, context) {
    const out: Judgement[] = []
    if ('pattern' in schema) out.push(...each(present(schema, ['minLength', 'maxLength']), 'loosened', 'dropped beside pattern'))
    if ('$ref' in schema && context.cyclic.has(`${place.pointer}/$ref`)) out.push({ keyword: '$ref', verdict: 'tightened', why: 'recursion is cut after three levels' })
    return out
  }
})

const llguidance = tabled('llguidance', 'llguidance (vLLM guidance backend, llama.cpp with LLGuidance, Azure)', {
  loosened: ['minProperties', 'maxProperties'],
  refused: ['not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'uniqueItems', 'contains', 'minContains',
    'maxContains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'],
  formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'uri']),
  refusesFormats: true,
  oneOf: 'refused'
})

export const PROFILES: readonly Profile[] = [openai, anthropic, gemini, llamaCpp, xgrammar, outlines, llguidance]
