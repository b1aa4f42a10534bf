import { Ajv2020, MissingRefError, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { checks } from './formats.ts'
import {
  GPT_ERR_FORM_INVALID,
  GPT_ERR_FORM_NOT_JSON,
  GPT_ERR_FORM_PROPERTY_NAME,
  GPT_ERR_FORM_UNKNOWN_FORMAT,
  GPT_ERR_FORM_UNKNOWN_KEYWORD,
  GPT_ERR_FORM_UNRESOLVED_REF
} from './errors.ts'

/** A form: a JSON Schema (draft 2020-12) object, as published in `s` and enforced on every act. */
export type JsonObject = { readonly [key: string]: Json }
export type Json = null | boolean | number | string | readonly Json[] | JsonObject

/**
 * A deep, frozen copy of `value` made of plain JSON data only. The copy, not the caller's object,
 * is what is published and compiled: a getter, a proxy or a later mutation cannot make the two
 * differ (draft §5.2 (3): the same value of s, not a copy that can drift).
 */
export function freezeJson (value: unknown, address: string, path = ''): Json {
  return copy(value, address, path, new Set())
}

function copy (value: unknown, address: string, path: string, open: Set<object>): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value
    throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} is ${value}`)
  }
  if (typeof value !== 'object') {
    throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} is a ${typeof value}`)
  }
  if (open.has(value)) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} refers to itself`)
  open.add(value)
  let out: Json
  if (Array.isArray(value)) {
    const items: Json[] = []
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} has a hole at ${i}`)
      items.push(copy(value[i], address, `${path}/${i}`, open))
    }
    out = Object.freeze(items)
  } else {
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} is not a plain object`)
    }
    if (Object.getOwnPropertySymbols(value).length > 0) {
      throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(path)} has symbol keys`)
    }
    const members: Record<string, Json> = {}
    for (const key of Object.keys(value)) {
      // A body can never carry "__proto__" (see parse.ts), so a form naming it publishes
      // something no act can satisfy; and a plain object cannot hold it safely.
      if (key === '__proto__') throw new GPT_ERR_FORM_PROPERTY_NAME(address, `${pointer(path)} has a member "__proto__"`)
      members[key] = copy((value as Record<string, unknown>)[key], address, `${path}/${escape(key)}`, open)
    }
    out = Object.freeze(members)
  }
  open.delete(value)
  return out
}

// Keywords Ajv knows but does not enforce as constraints. A form author writing them expects a
// check; draft §5.2 (4) says such a form must not be treated as though the check were absent.
const UNENFORCED: ReadonlyMap<string, string> = new Map([
  ['contentEncoding', 'is an annotation in draft 2020-12 and is never checked'],
  ['contentMediaType', 'is an annotation in draft 2020-12 and is never checked'],
  ['contentSchema', 'is an annotation in draft 2020-12 and is never checked'],
  ['$async', 'is not JSON Schema'],
  ['$dynamicRef', 'is not fully supported by the validator'],
  ['$dynamicAnchor', 'is not fully supported by the validator'],
  ['$recursiveRef', 'is not JSON Schema 2020-12'],
  ['$recursiveAnchor', 'is not JSON Schema 2020-12'],
  ['unevaluatedItems', 'is not enforced correctly by the validator with nested items or contains']
])

const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'])
const SUBSCHEMA_LISTS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf'])
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/** What a walk over the form saw: its keywords, and the property names it mentions. */
interface Seen {
  readonly keywords: Set<string>
  readonly names: Set<string>
}

/** Walks every subschema, refusing what Ajv would accept but not enforce. */
function audit (schema: Json, address: string, path: string, seen: Seen): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return
  const object = schema as JsonObject
  for (const key of Object.keys(object)) {
    const value = object[key] as Json
    const at = `${path}/${escape(key)}`
    const why = UNENFORCED.get(key)
    if (why !== undefined) throw new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, `"${key}" at ${pointer(path)} ${why}`)
    seen.keywords.add(key)
    const required = namesRequired(key, value)
    for (const name of required) if (typeof name === 'string') seen.names.add(name)
    if ((key === 'properties' || key === 'dependentRequired' || key === 'dependentSchemas') && isObject(value)) {
      for (const name of Object.keys(value)) seen.names.add(name)
    }
    if (required.includes('__proto__')) {
      throw new GPT_ERR_FORM_PROPERTY_NAME(address, `${at} requires "__proto__", which no body can carry`)
    }
    // Ajv skips an empty name in required and dependentRequired: the check would silently vanish.
    if (required.includes('')) {
      throw new GPT_ERR_FORM_PROPERTY_NAME(address, `${at} requires the empty name "", which the validator does not check`)
    }
    if (SUBSCHEMA.has(key)) {
      audit(value, address, at, seen)
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      value.forEach((item, i) => audit(item, address, `${at}/${i}`, seen))
    } else if (SUBSCHEMA_MAPS.has(key) && isObject(value)) {
      for (const name of Object.keys(value)) audit(value[name] as Json, address, `${at}/${escape(name)}`, seen)
    }
  }
}

const namesRequired = (key: string, value: Json): readonly Json[] => {
  if (key === 'required' && Array.isArray(value)) return value
  if (key === 'dependentRequired' && isObject(value)) return Object.values(value).flat()
  return []
}

const isObject = (value: Json): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

// Formats checked exactly as draft 2020-12 defines them (the JSON Schema Test Suite agrees on every
// case): these from ajv-formats, and those of src/formats.ts. Any other format is refused rather
// than half-enforced: ajv-formats' hostname, say, accepts invalid IDNA labels.
const FORMATS = ['date', 'time', 'ipv4', 'ipv6', 'json-pointer', 'relative-json-pointer'] as const

/** Whether `value` is a multiple of `divisor`, both read as the decimals they are written as. */
function multipleOf (divisor: number, value: number): boolean {
  const [a, ea] = decimal(value)
  const [b, eb] = decimal(divisor)
  const e = Math.min(ea, eb)
  return (a * 10n ** BigInt(ea - e)) % (b * 10n ** BigInt(eb - e)) === 0n
}

/** A finite number as exact decimal digits and exponent, from its shortest round-trip form. */
function decimal (n: number): [digits: bigint, exponent: number] {
  const [mantissa = '', exponent = '0'] = String(n).split('e')
  const [whole = '', fraction = ''] = mantissa.split('.')
  return [BigInt(whole + fraction), Number(exponent) - fraction.length]
}

function validatorFor (allErrors: boolean, ownProperties: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    // What the actor sent is what `act` receives: no coercion, no defaults, nothing removed.
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    // draft §5.2 (4): unknown keywords and formats are refused, never ignored.
    strictSchema: true,
    validateFormats: true,
    validateSchema: false, // done once per form against the shared meta-schema validator below
    // ...while every valid 2020-12 schema still compiles (type unions, required without properties).
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allowMatchingProperties: true,
    // `required: ["constructor"]` must look at the body's own members, not Object.prototype; a
    // hasOwnProperty call per test is paid only by forms naming such a member.
    ownProperties,
    unicodeRegExp: true,
    allErrors, // every failed constraint, for `explain` only; the verdict is the same
    addUsedSchema: false,
    logger: false
  })
  addFormats.default(ajv, { mode: 'full', formats: [...FORMATS] })
  // Ajv resolves `$anchor` but lists no keyword for it, so strict mode would call it unknown
  // (ajv-validator/ajv#1854): it is an identifier, with nothing to validate.
  ajv.addKeyword('$anchor')
  for (const [name, check] of Object.entries(checks)) ajv.addFormat(name, check)
  // Ajv divides in floating point: 1e308 is then no multiple of 0.5 (the quotient overflows).
  ajv.removeKeyword('multipleOf')
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate: multipleOf })
  return ajv
}

// The 2020-12 meta-schema, compiled once per process: checking a form against it is most of what a
// fresh Ajv instance would cost, and a fresh instance per form keeps forms from resolving each
// other's $ids.
let metaSchema: Ajv2020 | undefined

/** draft §4: s must be a valid JSON Schema; a `$schema` other than 2020-12 throws here. */
function checkMetaSchema (form: JsonObject): void {
  metaSchema ??= new Ajv2020({ logger: false })
  if (!metaSchema.validateSchema(form)) throw new Error(`schema is invalid: ${metaSchema.errorsText(metaSchema.errors, { dataVar: 'form' })}`)
}

/**
 * Compiles the frozen form into the one validator that guards the address's acts (draft §5.2 (3)).
 * Throws a named error for any form the validator would not enforce to the letter.
 */
export function compileForm (form: Json, address: string, { allErrors = false } = {}): ValidateFunction {
  if (!isObject(form)) throw new GPT_ERR_FORM_INVALID(address, 'the form must be a JSON Schema object')
  const { keywords, names } = { keywords: new Set<string>(), names: new Set<string>() }
  audit(form, address, '', { keywords, names })
  // Ajv mis-evaluates this pair where the JSON Schema Test Suite probes it (scripts/schema-suite.ts).
  if (keywords.has('unevaluatedProperties') && keywords.has('if')) {
    throw new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, '"unevaluatedProperties" is not enforced correctly beside "if"')
  }
  try {
    checkMetaSchema(form)
    const inherited = [...names].some((name) => name in Object.prototype)
    return validatorFor(allErrors, inherited).compile(form)
  } catch (error) {
    throw refusal(error, address)
  }
}

function refusal (error: unknown, address: string): Error {
  if (error instanceof MissingRefError) return new GPT_ERR_FORM_UNRESOLVED_REF(address, error.missingRef)
  const message = error instanceof Error ? error.message : String(error)
  if (message.startsWith('strict mode: unknown keyword')) {
    return new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, message.slice('strict mode: '.length))
  }
  if (message.startsWith('unknown format')) return new GPT_ERR_FORM_UNKNOWN_FORMAT(address, message)
  if (message.startsWith('strict mode:')) {
    // e.g. "then" without "if": valid JSON Schema, but a keyword with no effect is a mistake.
    return new GPT_ERR_FORM_INVALID(address, `a keyword here has no effect (${message.slice('strict mode: '.length)})`)
  }
  if (message.startsWith('no schema with key or ref')) {
    return new GPT_ERR_FORM_INVALID(address, `${message} (only draft 2020-12 forms are served)`)
  }
  return new GPT_ERR_FORM_INVALID(address, message)
}

/** A JSON Pointer for messages; '' (the whole form) reads as '/'. */
const pointer = (path: string): string => (path === '' ? 'the form' : path)
const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1')
