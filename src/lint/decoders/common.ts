// What the profiles share: the keywords by the type they constrain, and the judgement of a
// converter read off a table (what it drops, refuses, which formats it knows).
import { disjointOneOf } from '../unions.ts'
import { isObject, listOf, literals, ownTypes, typeOf, type Json, type JsonObject, type Place } from '../schema.ts'
import type { DecoderName } from '../types.ts'
import type { Context, Judgement, Profile } from './profile.ts'

export const STRING = ['minLength', 'maxLength', 'pattern', 'format']
export const NUMBER = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
export const ARRAY = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems']
export const OBJECT = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties',
  'maxProperties', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties']
// `if` alone admits everything: dropping it (with its then and else) is judged at then and else.
export const CONDITIONAL = ['not', 'then', 'else']
/** Every keyword that constrains a value. */
export const ASSERTIONS = new Set(['type', 'enum', 'const', ...STRING, ...NUMBER, ...ARRAY, ...OBJECT, ...CONDITIONAL,
  'allOf', 'anyOf', 'oneOf', '$ref'])

export const num = (schema: JsonObject, key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
// `uniqueItems` asks for nothing when false or when at most one item is admitted: dropping it loosens nothing.
export const present = (schema: JsonObject, keys: readonly string[]): string[] => keys.filter((key) => key in schema &&
  !(key === 'uniqueItems' && (schema[key] === false || (num(schema, 'maxItems') ?? 2) <= 1)))
export const each = (keys: readonly string[], verdict: Judgement['verdict'], why: string): Judgement[] => keys.map((keyword) => ({ keyword, verdict, why }))

/** Whether a schema admits null (as openai-node decides it: a $ref or a condition counts as no). */
export function nullable (schema: Json): boolean {
  if (typeof schema === 'boolean') return schema
  if (!isObject(schema) || '$ref' in schema || CONDITIONAL.some((key) => key in schema) || 'if' in schema) return false
  if (ownTypes(schema)?.has('null') === false) return false
  const branches = (key: string): Json[] => [...listOf(schema[key])]
  if ('allOf' in schema && !branches('allOf').every(nullable)) return false
  if ('anyOf' in schema && !branches('anyOf').some(nullable)) return false
  return !('oneOf' in schema) || branches('oneOf').filter(nullable).length === 1
}

/** A literal of `enum`/`const` that its sibling `type` does not admit. */
export const typeBesideLiterals = (schema: JsonObject): boolean => {
  const values = literals(schema)
  if (values === undefined || !('type' in schema)) return false
  const types = new Set(Array.isArray(schema['type']) ? schema['type'] : [schema['type']])
  return values.some((value) => {
    const t = typeOf(value)
    return !(types.has(t) || (t === 'integer' && types.has('number')))
  })
}

export function oneOf (schema: JsonObject, context: Context, verdict: 'loosened' | 'refused', why: string): Judgement[] {
  if (!('oneOf' in schema) || disjointOneOf(context.form, schema)) return []
  return [{ keyword: 'oneOf', verdict, why }]
}

// ---------------------------------------------------------------------------------------------
// The profiles below were verified by reading the converters' source (Gemini: its documentation);
// no converter of theirs runs under Node. Sources, commits and what stays unknown: docs/forms.md.
export interface Table {
  /** Keywords dropped wherever they stand. */
  readonly loosened: readonly string[]
  /** Whether a keyword of `loosened` lets nothing through in this schema, whose shape already keeps to it. */
  readonly harmless?: (schema: JsonObject, keyword: string) => boolean
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
  /** Judgements on the form as a whole, each keyword a path from its root. */
  readonly limits?: (form: Json) => Judgement[]
}

export const under = (place: Place): string => place.pointer.split('/').at(-1) ?? ''
const LISTS = ['properties', 'patternProperties', 'prefixItems', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas']
/** The keyword of its parent a subschema stands under. */
export function keywordOf (place: Place): string {
  const tokens = place.pointer.split('/')
  const above = tokens.at(-2) ?? ''
  return LISTS.includes(above) ? above : under(place)
}

/**
 * A converter that reads one keyword of a schema (`first` of its parent, when present) and
 * otherwise the `others`: whether it compiles the subschema in this place. Definitions are read
 * where a $ref leads.
 */
export const reading = (first: readonly string[], others: readonly string[]) => (place: Place): boolean => {
  if (place.role === 'root' || place.role === 'definition') return true
  const parent = place.parent ?? {}
  const winner = first.find((key) => key in parent)
  const keyword = keywordOf(place)
  return winner === undefined ? others.includes(keyword) && !(keyword === 'prefixItems' && 'items' in parent) : keyword === winner
}

export function tabled (name: DecoderName, runtimes: string, version: string, table: Table): Profile {
  return {
    name,
    runtimes,
    version,
    ...(table.limits === undefined ? {} : { limits: table.limits }),
    judge (schema, place, context) {
      if (table.reads?.(place) === false) return []
      if (typeof schema === 'boolean') {
        return table.booleans?.(place) === true ? [{ keyword: '', verdict: 'refused', why: 'the converter refuses a boolean schema here' }] : []
      }
      if (!isObject(schema)) return []
      const out = [
        ...each(present(schema, table.loosened).filter((key) => table.harmless?.(schema, key) !== true), 'loosened', 'not enforced'),
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

export const LITERAL_BESIDE = ['allOf', 'anyOf', 'oneOf', '$ref', 'const', 'enum']
/**
 * Assertions beside `winner` that a converter reading only the winner leaves out. Beside enum or
 * const only applicators count: other keywords loosen nothing unless a literal breaks them.
 */
export const beside = (schema: JsonObject, winner: string, keep: readonly string[], table: readonly string[]): Judgement[] =>
  each(present(schema, [...ASSERTIONS]).filter((key) => key !== winner && !keep.includes(key) && !table.includes(key) &&
    (!['const', 'enum'].includes(winner) || LITERAL_BESIDE.includes(key))), 'loosened', `not read beside ${winner}`)

/** `required` names the converter never produces: those missing from `properties`. */
export function undeclared (schema: JsonObject): Judgement[] {
  const named = isObject(schema['properties']) ? schema['properties'] : {}
  return listOf(schema['required']).some((name) => typeof name === 'string' && !Object.hasOwn(named, name))
    ? [{ keyword: 'required', verdict: 'loosened', why: 'a required name missing from properties is never produced' }]
    : []
}

export const isString = (value: Json | undefined): value is string => typeof value === 'string'
