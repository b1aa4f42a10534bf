// XGrammar's JSON Schema converter (mlc-ai/xgrammar cpp/json_schema_converter.cc, as
// @mlc-ai/web-xgrammar 0.1.27 ships it, strict mode), walked as it walks a form: it reads only the
// schemas it reaches, and each by the first of $ref, const, enum, anyOf/oneOf, allOf, type, object
// keywords, array keywords; what it never reaches it neither refuses nor compiles.
import { disjointOneOf } from './unions.ts'
import { applicators } from '../json/applicators.ts'
import { escape, isObject, listOf, literals, refTarget, resolve, typeOf, walk, type Json, type JsonObject } from './schema.ts'
import { LONE_SURROGATES, RAW_CONTROLS, REPEATED_NAMES, TEXT_MATCHED, textLeaks } from './wire.ts'

type Verdict = 'tightened' | 'loosened' | 'refused'
export interface Said { readonly keyword: string, readonly verdict: Verdict, readonly why: string }

const STRING = ['minLength', 'maxLength', 'pattern', 'format']
const NUMBER = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
const ARRAY = ['minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains']
const OBJECT = ['required', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas']
/** Keywords that constrain a value; `if` alone constrains nothing. */
const ASSERTING = new Set(['type', 'enum', 'const', ...STRING, ...NUMBER, ...ARRAY, ...OBJECT, 'items', 'prefixItems',
  'unevaluatedItems', 'properties', 'additionalProperties', 'unevaluatedProperties', 'not', 'then', 'else', 'allOf', 'anyOf', 'oneOf', '$ref'])
// Formats with a pattern of their own in the converter: beside them pattern and lengths are dropped.
const FORMATS = new Set(['email', 'date', 'time', 'date-time', 'duration', 'ipv4', 'ipv6', 'hostname', 'uuid', 'uri',
  'uri-reference', 'uri-template', 'json-pointer', 'relative-json-pointer'])
// The lengths of what those patterns produce, where bounded: lengths inside them ask nothing more.
const FORMAT_LENGTHS: Record<string, readonly [number, number]> = { date: [10, 10], uuid: [36, 36], ipv4: [7, 15], ipv6: [2, 45], time: [9, Infinity], 'date-time': [20, Infinity] }
// Formats checked by an approximate pattern (2021-02-30 passes as a date) or, unknown to it, not at all.
const LOOSE_FORMATS = new Set(['date', 'date-time', 'regex', 'iri', 'iri-reference', 'uri-template', 'relative-json-pointer', 'uri-reference', 'ipv4'])
// Pattern syntax its regular-expression converter cannot build: lookaround, backreferences, \p{...}.
/** Whether a pattern is anchored at both ends, so a converter that anchors it changes nothing. */
export const anchored = (pattern: string): boolean => pattern.startsWith('^') && pattern.endsWith('$') && !pattern.endsWith('\\$')
export const IRREGULAR = /\(\?<?[=!]|\\[1-9]|\\k<|\\[pP]\{/
const INT64 = 2 ** 63
// What XGrammar 0.2.5 and later do instead, where the two differ (docs/forms.md).
const SINCE_LOOKAROUND = '; 0.2.5 and later compile a lookaround and ignore it (loosened there)'
const ANY_VALUE = 'any value, by JSON\'s own grammar: a string may hold a lone surrogate escape ("\\ud800"), an object may repeat a member name, a number may overflow (1e400), and the parser refuses each'
// Judged wherever the schema is reached, whatever else it holds.
const IGNORED_EVERYWHERE = new Set(['not', 'then', 'else', 'dependentSchemas'])

// `contains` is left out: even a trivial one asks for an item.
const SUBSCHEMA = applicators('one', 'part').filter((key) => key !== 'contains')
const SUBSCHEMA_MAPS = applicators('map', 'part', 'in-place')
/** Whether a schema admits every value: true, annotations, or applicators of such schemas only. */
export const trivial = (schema: Json | undefined): boolean => schema === true || (isObject(schema) && Object.keys(schema).every((key) =>
  !ASSERTING.has(key) ||
  (SUBSCHEMA.includes(key) && trivial(schema[key])) ||
  (SUBSCHEMA_MAPS.includes(key) && isObject(schema[key]) && Object.values(schema[key]).every(trivial)) ||
  ((key === 'allOf' || key === 'prefixItems') && listOf(schema[key]).every(trivial))))
const num = (schema: JsonObject, key: string): number | undefined => typeof schema[key] === 'number' ? schema[key] : undefined
// `uniqueItems` asks for nothing when false or when at most one item is admitted.
const asks = (schema: JsonObject, key: string): boolean => key in schema &&
  !(key === 'uniqueItems' && (schema[key] === false || (num(schema, 'maxItems') ?? 2) <= 1)) &&
  !(['minItems', 'minProperties', 'minLength', 'minContains'].includes(key) && schema[key] === 0) &&
  !([...SUBSCHEMA, ...SUBSCHEMA_MAPS].includes(key) && trivial({ [key]: schema[key] as Json })) &&
  !(key === 'dependentRequired' && Object.values(isObject(schema[key]) ? schema[key] : {}).every((names) => listOf(names).length === 0)) &&
  // every integer is a multiple of 1/n
  !(key === 'multipleOf' && schema['type'] === 'integer' && Number.isInteger(1 / (num(schema, key) ?? 0)))

// A name written as is between the quotes of a grammar literal: the escapes that literal reads.
const LITERAL = /^(?:[^"\\\n\r]|\\[\\"'abefnrtv0xu])*$/
const breaksLiteral = (name: string): boolean => !LITERAL.test(name)

/** What the converter does with each keyword it reaches, by pointer of the schema it stands in. */
export function converterWalk (form: Json): Map<string, Said[]> {
  const walker = new ConverterWalk(form)
  walker.visit(form, '')
  return walker.settled()
}

/** What an object schema says of its members, as the object rule reads it. */
interface Members {
  readonly properties: JsonObject
  readonly patterns: JsonObject
  readonly required: ReadonlySet<string>
  readonly extraKey: string | undefined
  readonly extra: Json | undefined
  readonly max: number | undefined
}

/**
 * One walk of one form, a method for each kind of schema the converter tells apart, in the order
 * it tries them; `out` gathers what is said at each pointer, `followed` the `$ref`s already taken.
 */
class ConverterWalk {
  readonly out = new Map<string, Said[]>()
  readonly #followed = new Set<string>()
  constructor (readonly form: Json) {}

  /** Records a verdict on `keyword` of the schema at `at` ('' for the schema as a whole). */
  say (at: string, keyword: string, verdict: Verdict, why: string): void {
    const list = this.out.get(at) ?? []
    this.out.set(at, list)
    list.push({ keyword, verdict, why })
  }

  /** Says `why` of each of `keys` that asks something of a value, as a loosening. */
  loosen (at: string, schema: JsonObject, keys: readonly string[], why: string): void {
    for (const key of keys) if (asks(schema, key)) this.say(at, key, 'loosened', why)
  }

  /** A schema reached: what is never compiled, then the first kind the converter recognizes. */
  visit (schema: Json | undefined, at: string): void {
    if (schema === false) return this.say(at, '', 'refused', 'the converter fails: "Schema should not be false: it cannot accept any value"')
    if (schema === true) return this.say(at, '', 'loosened', ANY_VALUE)
    if (!isObject(schema)) return
    // Never compiled, whatever else the schema says.
    const { not, if: test, then, else: otherwise } = schema
    if (not !== undefined && not !== false && !(isObject(not) && 'not' in not && trivial(not['not']))) this.loosen(at, schema, ['not'], 'not compiled into the grammar')
    if (test !== false && !trivial(then)) this.loosen(at, schema, ['then'], 'not compiled into the grammar')
    if (!trivial(test) && !trivial(otherwise)) this.loosen(at, schema, ['else'], 'not compiled into the grammar')
    if (Object.values(isObject(schema['dependentSchemas']) ? schema['dependentSchemas'] : {}).some((s) => !trivial(s))) this.loosen(at, schema, ['dependentSchemas'], 'not compiled into the grammar')
    const composite = ['$ref', 'const', 'enum', 'anyOf', 'oneOf', 'allOf'].find((key) => key in schema)
    if (composite !== undefined) return this.composite(schema, at, composite)
    const type = schema['type']
    const types = typeof type === 'string' ? [type] : listOf(type).filter((t): t is string => typeof t === 'string')
    if (types.length > 0) return types.forEach((t) => { this.typed(schema, at, t) })
    if (['properties', 'additionalProperties', 'unevaluatedProperties'].some((key) => key in schema)) return this.typed(schema, at, 'object')
    if (['items', 'prefixItems', 'unevaluatedItems'].some((key) => key in schema)) return this.typed(schema, at, 'array')
    this.loosen(at, schema, [...STRING, ...NUMBER, ...ARRAY, ...OBJECT].filter((key) => !IGNORED_EVERYWHERE.has(key)), 'ignored: without a type the converter admits any value')
    this.say(at, '', 'loosened', ANY_VALUE)
  }

  /** $ref, const, enum, anyOf, oneOf, allOf: the converter reads the first and ignores the rest. */
  composite (schema: JsonObject, at: string, composite: string): void {
    if (composite === 'const' || composite === 'enum') {
      if (composite === 'enum' && listOf(schema['enum']).length === 0) return this.say(at, 'enum', 'refused', 'the grammar of an empty enum does not parse ("EBNF parser error ...: Expect element")')
      const types = typeof schema['type'] === 'string' ? [schema['type']] : Array.isArray(schema['type']) ? schema['type'] : undefined
      const outside = (v: Json): boolean => !(types?.includes(typeOf(v)) === true || (typeOf(v) === 'integer' && types?.includes('number') === true))
      if (types !== undefined && (literals(schema) ?? []).some(outside)) this.say(at, 'type', 'loosened', `ignored beside ${composite}`)
      return
    }
    this.loosen(at, schema, [...ASSERTING].filter((key) => key !== composite && !IGNORED_EVERYWHERE.has(key)), `ignored beside ${composite}`)
    if (composite === '$ref') return this.ref(schema['$ref'], at)
    if (composite === 'allOf') {
      const all = listOf(schema['allOf'])
      if (all.length === 1) return this.visit(all[0], `${at}/allOf/0`)
      // not compiled, it is any value: the wire's slips with it
      if (!all.every(trivial)) this.say(at, 'allOf', 'loosened', 'an allOf of more than one alternative is not compiled (0.2.5 and later intersect them, and refuse allOf: [true, false])')
      this.say(at, '', 'loosened', ANY_VALUE)
      return
    }
    if (composite === 'oneOf' && !disjointOneOf(this.form, schema)) this.say(at, 'oneOf', 'loosened', 'compiled as anyOf: a value matching two alternatives is produced')
    listOf(schema[composite]).forEach((branch, i) => { this.visit(branch, `${at}/${composite}/${i}`) })
  }

  /** A $ref, followed once, the converter's way: "#/..." split on "/", nothing unescaped. */
  ref (uri: Json | undefined, at: string): void {
    if (typeof uri !== 'string' || uri === '#' || this.#followed.has(uri)) return
    if (!uri.startsWith('#/')) {
      const target = refTarget(uri)
      if (!trivial(target === undefined ? undefined : resolve(this.form, target))) this.say(at, '$ref', 'loosened', 'a reference other than "#" or "#/..." is compiled as any value')
      this.say(at, '', 'loosened', ANY_VALUE)
      return
    }
    this.#followed.add(uri)
    // Split on "/", empty tokens skipped, neither ~0/~1 nor %-escapes undone, through objects only.
    const parts = uri.slice(2).split('/').filter((part) => part !== '')
    let here: Json | undefined = this.form
    for (const part of parts) here = isObject(here) && Object.hasOwn(here, part) ? here[part] : undefined
    if (here === undefined) return this.say(at, '$ref', 'refused', 'the converter cannot follow this pointer: it enters objects only and undoes no escapes ("Cannot find field ...")')
    this.visit(here, parts.map((part) => `/${escape(part)}`).join(''))
  }

  /** A schema with a type (given or implied by its keywords): one rule per JSON type. */
  typed (schema: JsonObject, at: string, type: string): void {
    if (type === 'integer' || type === 'number') return this.numeric(schema, at, type === 'integer')
    if (type === 'string') return this.string(schema, at)
    if (type === 'array') return this.array(schema, at)
    if (type === 'object') this.object(schema, at)
  }

  /** Bounds the converter refuses (not whole, past 64 bits, empty ranges), then those it drops. */
  numeric (schema: JsonObject, at: string, integer: boolean): void {
    const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].filter((key) => key in schema)
    if (integer) {
      for (const key of bounds) {
        const value = num(schema, key) ?? 0
        if (!Number.isInteger(value)) this.say(at, key, 'refused', 'the converter fails: "Integer constraint must be a whole number"')
        else if (Math.abs(value) >= INT64) this.say(at, key, 'refused', 'the converter fails: "Integer exceeds maximum limit" (64 bits)')
      }
    }
    const start = integer && 'exclusiveMinimum' in schema ? (num(schema, 'exclusiveMinimum') ?? 0) + 1 : num(schema, 'exclusiveMinimum') ?? num(schema, 'minimum')
    const end = integer && 'exclusiveMaximum' in schema ? (num(schema, 'exclusiveMaximum') ?? 0) - 1 : num(schema, 'exclusiveMaximum') ?? num(schema, 'maximum')
    if (start !== undefined && end !== undefined && start > end) this.say(at, 'minimum' in schema ? 'minimum' : 'exclusiveMinimum', 'refused', `the converter fails: "${integer ? 'Invalid range: minimum greater than maximum' : 'Invalid range, start value greater than end value'}"`)
    if (this.out.get(at)?.some((s) => s.verdict === 'refused') === true) return
    this.loosen(at, schema, ['multipleOf'], integer ? 'not compiled into the grammar (0.2.5 and later enforce an integer multipleOf)' : 'not compiled into the grammar')
    // As measured: a lower bound alone is dropped, as are a number's upper bounds.
    const lows = ['minimum', 'exclusiveMinimum'].filter((key) => key in schema)
    const highs = ['maximum', 'exclusiveMaximum'].filter((key) => key in schema)
    if (highs.length === 0) for (const key of lows) if ((num(schema, key) ?? 0) > 0) this.say(at, key, 'loosened', 'a positive lower bound without an upper one is not compiled')
    if (!integer) {
      for (const key of highs) this.say(at, key, 'loosened', 'a number\'s upper bound is compiled loosely (10.5 passes maximum 10; 0.2.5 and later enforce it)')
      if (highs.length > 0 && 'exclusiveMinimum' in schema) this.say(at, 'exclusiveMinimum', 'loosened', 'a number\'s exclusive bound is not compiled')
    }
    this.narrowed(schema, at, integer, lows[0], highs[0])
  }

  /** What the range rules of a bounded number never write, though the bounds admit it (as measured). */
  narrowed (schema: JsonObject, at: string, integer: boolean, low: string | undefined, high: string | undefined): void {
    const lower = low === undefined ? undefined : num(schema, low) ?? 0
    const upper = high === undefined ? undefined : num(schema, high) ?? 0
    if (integer) {
      if (low !== undefined && high === undefined && (lower ?? 0) < 0) this.say(at, low, 'tightened', 'a lower bound alone below 0 writes no negative integer, the bound itself included (-5 under minimum -5)')
      return
    }
    const first = low ?? high
    if (first === undefined) return
    const holds = (v: number): boolean => (lower === undefined || v > lower) && (upper === undefined || v < upper)
    // a whole multipleOf admits no fraction: what is lost of fractions is nothing the form admits
    const whole = Number.isInteger(schema['multipleOf'])
    const claims = [
      whole ? '' : 'at most 6 fraction digits and no exponent (1.1234567 and 1e-7 are never written)',
      !whole && holds(0.5) && lower !== undefined && lower <= 0 && upper === undefined ? 'no fraction between 0 and 1 (0.5 under minimum 0, where 1.5 is written)' : '',
      !whole && holds(-0.5) ? 'no fraction between -1 and 0 (-0.5 under maximum 10)' : '',
      lower !== undefined && lower < -1 && upper === undefined ? `no negative number above the bound but the bound itself (${whole ? '-4' : '-4.5'} under minimum -5)` : ''
    ].filter((text) => text !== '')
    if (claims.length > 0) this.say(at, first, 'tightened', `a bounded number is written with ${claims.join(', and ')}`)
  }

  /** A string: format beats pattern beats lengths; then what each of them compiles loosely. */
  string (schema: JsonObject, at: string): void {
    const format = typeof schema['format'] === 'string' ? schema['format'] : undefined
    const pattern = typeof schema['pattern'] === 'string' && !(format !== undefined && FORMATS.has(format)) ? schema['pattern'] : undefined
    if (format !== undefined && FORMATS.has(format)) {
      const [shortest, longest] = FORMAT_LENGTHS[format] ?? [0, Infinity]
      const lengths = ['minLength', 'maxLength'].filter((key) => key === 'minLength' ? (num(schema, key) ?? 0) > shortest : (num(schema, key) ?? Infinity) < longest)
      this.loosen(at, schema, ['pattern', ...lengths], `dropped beside format "${format}"`)
      // Seen with web-xgrammar 0.1.27 (test/lint/narrowing.test.ts).
      if (format === 'date-time') this.say(at, 'format', 'tightened', 'its date-time rule writes T and Z in capitals only, and no leap second; RFC 3339 admits each (2026-12-03t10:00:00z and 2016-12-31T23:59:60Z are never written)')
      if (format === 'time') this.say(at, 'format', 'tightened', 'its time rule writes Z in capitals only; RFC 3339 admits it (10:00:00z is never written)')
    } else if (pattern !== undefined) this.loosen(at, schema, ['minLength', 'maxLength'], 'dropped beside pattern')
    else if ((num(schema, 'minLength') ?? 0) > (num(schema, 'maxLength') ?? Infinity)) return this.say(at, 'minLength', 'refused', `the converter fails: "In string schema, minLength ${num(schema, 'minLength')} is greater than maxLength ${num(schema, 'maxLength')}"`)
    if (pattern !== undefined) {
      if (IRREGULAR.test(pattern)) return this.say(at, 'pattern', 'refused', `its regular-expression converter has no lookaround ("Lookahead is not supported yet."), backreferences ("Backreference is not supported yet.") or \\p{...}${SINCE_LOOKAROUND}`)
      if (pattern.includes('\\S')) this.say(at, 'pattern', 'loosened', '\\S is compiled loosely (a space passes)')
      if (textLeaks(pattern)) this.say(at, 'pattern', 'loosened', TEXT_MATCHED)
      if (!anchored(pattern)) this.say(at, 'pattern', 'tightened', 'matched as if anchored at both ends')
    } else if (format === undefined || !FORMATS.has(format)) {
      // The two string rules of the converter: with a length bound, any character but the quote,
      // the backslash and line breaks (so raw control characters, and no escapes); without, JSON's
      // own string with every \\u escape, lone surrogates too.
      const bound = ['maxLength', 'minLength'].find((key) => key in schema)
      if (bound !== undefined) {
        if (num(schema, 'maxLength') !== 0) {
          this.say(at, bound, 'loosened', RAW_CONTROLS)
          this.say(at, bound, 'tightened', 'the length-bounded string rule writes no escape, so no quote, backslash or line break (the string a"b is never written)')
        }
      } else this.say(at, '', 'loosened', LONE_SURROGATES)
    }
    if (format !== undefined && LOOSE_FORMATS.has(format) && (FORMATS.has(format) || pattern === undefined)) {
      this.say(at, 'format', 'loosened', format === 'ipv4'
        ? 'its ipv4 pattern takes leading zeros ("00.59.2.002", octal to some readers), which the format refuses'
        : 'checked by an approximate pattern (e.g. 2021-02-30 passes as a date), or not at all')
    } else if (format !== undefined && !FORMATS.has(format) && pattern !== undefined) this.loosen(at, schema, ['format'], 'dropped beside pattern')
  }

  /** An array: the item counts the converter refuses, then prefixItems and the items after them. */
  array (schema: JsonObject, at: string): void {
    const prefix = listOf(schema['prefixItems'])
    const rest = 'items' in schema ? schema['items'] : 'unevaluatedItems' in schema ? schema['unevaluatedItems'] : false
    const min = Math.max(num(schema, 'minItems') ?? 0, num(schema, 'minContains') ?? 0)
    const max = num(schema, 'maxItems')
    if (prefix.includes(false)) return this.say(at, 'prefixItems', 'refused', 'the converter fails: "prefixItems contains false"')
    if (max !== undefined && min > max) return this.say(at, 'maxItems', 'refused', 'the converter fails: "minItems is greater than maxItems"')
    if (max !== undefined && max < prefix.length) return this.say(at, 'maxItems', 'refused', 'the converter fails: "maxItems is less than the number of prefixItems"')
    if (rest === false && prefix.length < min) return this.say(at, 'minItems', 'refused', 'the converter fails: "minItems is greater than the number of prefixItems, but additional items are not allowed"')
    if (!('items' in schema) && !('unevaluatedItems' in schema)) this.say(at, '', 'tightened', 'items the form does not name are never produced (strict mode)')
    this.loosen(at, schema, ['uniqueItems', 'contains', 'minContains', 'maxContains'], 'not compiled into the grammar')
    prefix.forEach((item, i) => this.visit(item, `${at}/prefixItems/${i}`))
    if (rest !== false) this.visit(rest, `${at}/${'items' in schema ? 'items' : 'unevaluatedItems'}`)
  }

  /** An object: named members, or members by pattern / propertyNames, which drop the named ones. */
  object (schema: JsonObject, at: string): void {
    const properties = isObject(schema['properties']) ? schema['properties'] : {}
    const names = Object.keys(properties)
    const patterns = isObject(schema['patternProperties']) ? schema['patternProperties'] : {}
    const required = new Set(listOf(schema['required']).filter((name): name is string => typeof name === 'string'))
    const extraKey = 'additionalProperties' in schema ? 'additionalProperties' : 'unevaluatedProperties' in schema ? 'unevaluatedProperties' : undefined
    const extra = extraKey === undefined ? false : schema[extraKey]
    const min = num(schema, 'minProperties') ?? 0
    const max = num(schema, 'maxProperties')
    if ('propertyNames' in schema) {
      const pn = schema['propertyNames']
      if (!isObject(pn)) return this.say(at, 'propertyNames', 'refused', 'the converter fails: "propertyNames must be an object"')
      if (typeof pn['type'] === 'string' && pn['type'] !== 'string') return this.say(at, 'propertyNames', 'refused', 'the converter fails: "propertyNames must be an object that validates string"')
    }
    if (max !== undefined && min > max) return this.say(at, 'maxProperties', 'refused', 'the converter fails: "minxPropertiesmax is greater than maxProperties" (sic)')
    if (max !== undefined && required.size > max) return this.say(at, 'maxProperties', 'refused', 'the converter fails: "maxProperties is less than the number of required properties"')
    const named = Object.keys(patterns).length > 0 || 'propertyNames' in schema
    if (!named && extra === false && min > names.length) return this.say(at, 'minProperties', 'refused', 'the converter fails: "minProperties is greater than the number of properties, but additional properties aren\'t allowed"')
    this.loosen(at, schema, ['dependentRequired'], 'not compiled into the grammar')
    if (named) return this.byName(schema, at, { properties, patterns, required, extraKey, extra, max })
    if (names.some(breaksLiteral)) return this.say(at, 'properties', 'refused', 'the converter writes member names into its grammar unescaped: a quote, a line break or a stray backslash breaks it ("EBNF lexer error ...")')
    if ([...required].some((name) => !Object.hasOwn(properties, name))) this.say(at, 'required', 'loosened', 'a required name missing from properties is not required')
    if (extraKey === undefined) this.say(at, '', 'tightened', 'members the form does not name are never produced (strict mode)')
    for (const name of names) this.visit(properties[name], `${at}/properties/${escape(name)}`)
    if (extra !== false && extraKey !== undefined) {
      this.repeats(at, extraKey, max)
      // The names of members the form does not list are JSON's own strings.
      this.say(at, extraKey, 'loosened', `a name: ${LONE_SURROGATES}`)
      this.visit(extra, `${at}/${extraKey}`)
    }
  }

  /**
   * Members by patternProperties or propertyNames: only members whose names match are produced, and
   * their values follow that one schema, so properties, required and additional members are dropped.
   */
  byName (schema: JsonObject, at: string, members: Members): void {
    const { properties, patterns, required, extraKey, extra, max } = members
    if (Object.keys(properties).some((name) => !trivial(properties[name]))) this.say(at, 'properties', 'loosened', 'dropped beside patternProperties or propertyNames')
    if (required.size > 0) this.say(at, 'required', 'loosened', 'dropped beside patternProperties or propertyNames')
    const key = Object.keys(patterns).length > 0 ? 'patternProperties' : 'propertyNames'
    if (key === 'patternProperties') {
      for (const pattern of Object.keys(patterns)) if (IRREGULAR.test(pattern)) return this.say(at, 'patternProperties', 'refused', `its regular-expression converter has no lookaround ("Lookahead is not supported yet."), backreferences ("Backreference is not supported yet.") or \\p{...}${SINCE_LOOKAROUND}`)
      if ('propertyNames' in schema && !trivial(schema['propertyNames'])) this.say(at, 'propertyNames', 'loosened', 'dropped beside patternProperties')
      if (Object.keys(patterns).length > 1) this.say(at, 'patternProperties', 'loosened', 'a name matching two patterns is held to one of them')
      for (const [pattern, value] of Object.entries(patterns)) this.visit(value, `${at}/patternProperties/${escape(pattern)}`)
    } else {
      if (extraKey !== undefined && !trivial(extra)) this.say(at, extraKey, 'loosened', 'dropped beside propertyNames: values are any')
      this.say(at, 'propertyNames', 'loosened', `the members' values are ${ANY_VALUE}`)
      this.visit({ ...(schema['propertyNames'] as JsonObject), type: 'string' }, `${at}/propertyNames`)
    }
    this.repeats(at, key, max)
  }

  /** Members the grammar produces by a rule, not by name, may repeat a name unless at most one is allowed. */
  repeats (at: string, key: string, max: number | undefined): void {
    if ((max ?? 2) >= 2) this.say(at, key, 'loosened', REPEATED_NAMES)
  }

  /** What the converter reached outside the schemas lint walks, said at the form's root instead. */
  settled (): Map<string, Said[]> {
    const walked = new Set<string>()
    walk(this.form, (_, place) => walked.add(place.pointer))
    for (const [at, list] of this.out) {
      if (walked.has(at) || at === '') continue
      this.out.delete(at)
      for (const said of list) this.say('', `${at.slice(1)}${said.keyword === '' ? '' : `/${said.keyword}`}`, said.verdict, said.why)
    }
    return this.out
  }
}
