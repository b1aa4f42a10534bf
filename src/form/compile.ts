import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { ajvRefusal, envOf, installBounded, knownKeywords, resolveRef, wrapSource } from './ajv.ts'
import { bounded } from './bounded.ts'
import { DEFAULT_LIMITS, measureForm, type Limits } from '../limits.ts'
import { refuseInPlaceCycles, type Env } from './cycles.ts'
import { checks } from './formats.ts'
import { multipleOf, uniqueItems } from './keywords.ts'
import { validateMeta as metaSchemaCode } from './meta-schema.ts'
import { compilePattern, linearRegExp, PatternError } from './pattern/pattern.ts'
import {
  GPT_ERR_FORM_INVALID,
  GPT_ERR_FORM_NO_EFFECT,
  GPT_ERR_FORM_PATTERN,
  GPT_ERR_FORM_PROPERTY_NAME,
  GPT_ERR_FORM_TOO_DEEP,
  GPT_ERR_FORM_TOO_LARGE,
  GPT_ERR_FORM_UNKNOWN_FORMAT,
  GPT_ERR_FORM_UNKNOWN_KEYWORD,
  GPT_ERR_FORM_UNRESOLVED_REF
} from '../errors.ts'

import { freezeJson, type JsonBound } from '../json/freeze.ts'
import { applicators } from '../json/applicators.ts'
import { escape, pointer } from '../json/pointer.ts'
import { isObject, type Json, type JsonObject } from '../json/value.ts'

export { freezeJson, type Json, type JsonBound, type JsonObject }

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
  ['unevaluatedItems', 'is not enforced correctly by the validator with nested items or contains'],
  // Keywords the validator would enforce that draft 2020-12 does not have: a 2020-12 actor or
  // validator ignores them, so what is published and what is enforced would differ.
  ['dependencies', 'is not a draft 2020-12 keyword (write dependentRequired or dependentSchemas)'],
  ['nullable', 'is an OpenAPI keyword, not draft 2020-12 (write "type": [..., "null"])'],
  ['id', 'is not a draft 2020-12 keyword (write "$id")']
])

/** What a keyword beside its partners would not check: valid 2020-12, but surely not what was meant. */
function noEffect (schema: JsonObject): string | undefined {
  const has = (key: string): boolean => schema[key] !== undefined
  for (const key of ['then', 'else']) if (has(key) && !has('if')) return `"${key}" has no effect without "if" beside it`
  if (has('if') && !has('then') && !has('else')) return '"if" has no effect without "then" or "else" beside it'
  for (const key of ['minContains', 'maxContains']) if (has(key) && !has('contains')) return `"${key}" has no effect without "contains" beside it`
  const { minContains, maxContains } = schema
  if (has('contains') && minContains === 0 && !has('maxContains')) return '"contains" has no effect with "minContains": 0 and no "maxContains"'
  if (typeof minContains === 'number' && typeof maxContains === 'number' && minContains > maxContains) {
    return '"minContains" is above "maxContains": no array can satisfy both'
  }
  return undefined
}

/** The known keyword nearest to a typo, within two edits. */
function nearest (word: string): string | undefined {
  let best: string | undefined
  let distance = 3
  for (const keyword of knownKeywords()) {
    const d = edits(word.toLowerCase(), keyword.toLowerCase(), distance)
    if (d < distance) [best, distance] = [keyword, d]
  }
  return best
}

/** Levenshtein distance, or `cap` once it is at least that. */
function edits (a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return Math.min(row[b.length] as number, cap)
}

const SUBSCHEMA = new Set(applicators('one'))
const SUBSCHEMA_LISTS = new Set(applicators('list'))
const SUBSCHEMA_MAPS = new Set(applicators('map'))

/** What a walk over the form saw: its keywords, and the property names it mentions. */
interface Seen {
  readonly keywords: Set<string>
  readonly names: Set<string>
  /** Every schema object walked, so that one reached again by a `$ref` is not walked twice. */
  readonly schemas: Set<object>
  /** The most keywords and members of schemas along one path: how deep the validator's code nests. */
  nesting: number
  /** The deepest subschema: its depth in schemas and where it is. */
  deepest: { depth: number, path: string }
  /** The widest schema: its keywords and the members of its lists and maps of subschemas, and where it is. */
  widest: { width: number, path: string }
}

/** Walks every subschema, refusing what Ajv would accept but not enforce. */
function audit (schema: Json, address: string, path: string, seen: Seen, nesting = 0, depth = 1): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || seen.schemas.has(schema)) return
  seen.schemas.add(schema)
  const object = schema as JsonObject
  // Without allErrors the validator's code opens a block per keyword and per member that closes
  // only at the schema's end: a flat object of thousands of properties nests thousands deep.
  const wide = width(object)
  nesting += wide
  seen.nesting = Math.max(seen.nesting, nesting)
  if (wide > seen.widest.width) seen.widest = { width: wide, path }
  if (depth > seen.deepest.depth) seen.deepest = { depth, path }
  const idle = noEffect(object)
  if (idle !== undefined) throw new GPT_ERR_FORM_NO_EFFECT(address, `${idle}, at ${pointer(path)}`)
  for (const key of Object.keys(object)) {
    const value = object[key] as Json
    const at = `${path}/${escape(key)}`
    const why = UNENFORCED.get(key)
    if (why !== undefined) throw new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, `"${key}" at ${pointer(path)} ${why}`)
    if (!knownKeywords().has(key)) {
      const guess = nearest(key)
      throw new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, `"${key}" at ${pointer(path)} is not a keyword of JSON Schema 2020-12${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`)
    }
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
    if (key === 'pattern' && typeof value === 'string') checkPattern(value, address, at)
    if (key === 'patternProperties' && isObject(value)) for (const source of Object.keys(value)) checkPattern(source, address, `${at}/${escape(source)}`)
    if (SUBSCHEMA.has(key)) {
      audit(value, address, at, seen, nesting, depth + 1)
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      value.forEach((item, i) => audit(item, address, `${at}/${i}`, seen, nesting, depth + 1))
    } else if (SUBSCHEMA_MAPS.has(key) && isObject(value)) {
      for (const name of Object.keys(value)) audit(value[name] as Json, address, `${at}/${escape(name)}`, seen, nesting, depth + 1)
    }
  }
}

/** A schema's keywords and the members of its lists and maps of subschemas. */
function width (schema: JsonObject): number {
  let n = 0
  for (const key of Object.keys(schema)) {
    const value = schema[key] as Json
    n++
    if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) n += value.length
    else if (SUBSCHEMA_MAPS.has(key) && isObject(value)) n += Object.keys(value).length
  }
  return n
}

/** A pattern the linear-time matcher cannot run is refused where it stands (docs/patterns.md). */
function checkPattern (source: string, address: string, at: string): void {
  try {
    compilePattern(source)
  } catch (error) {
    if (error instanceof PatternError) throw new GPT_ERR_FORM_PATTERN(address, `${JSON.stringify(source)} at ${at}: ${error.message}`)
    /* c8 ignore next 2: the pattern engine refuses every pattern by PatternError; anything else is a fault of ours, passed on unnamed rather than as a refused form */
    throw error
  }
}

const namesRequired = (key: string, value: Json): readonly Json[] => {
  if (key === 'required' && Array.isArray(value)) return value
  if (key === 'dependentRequired' && isObject(value)) return Object.values(value).flat()
  return []
}

// Formats checked exactly as draft 2020-12 defines them (the JSON Schema Test Suite agrees on every
// case): these from ajv-formats, and those of src/form/formats.ts. Any other format is refused rather
// than half-enforced: ajv-formats' hostname, say, accepts invalid IDNA labels.
const FORMATS = ['date', 'ipv4', 'ipv6', 'json-pointer', 'relative-json-pointer'] as const

export interface CompileOptions {
  /** Every failed constraint in the errors (for `explain`); the verdict is the same. */
  readonly allErrors?: boolean
  /** The limits the form is held to before anything costly (src/limits.ts). */
  readonly limits?: Limits
}

/** The validator for one form, and every part of it that a `$ref` made it compile. */
interface Compiled {
  readonly validate: ValidateFunction
  readonly envs: readonly Env[]
  readonly ajv: Ajv2020
}

/**
 * Past this many keywords and members along one path, the validator is compiled with allErrors,
 * whose code nests by the depth of schemas only: otherwise a flat object of 3,000 properties
 * exhausts the stack. The verdict is the same; a rejected body may be read to its end.
 */
const NESTING = 256
/**
 * Ajv's optimizing pass over the code it generates costs about (code size) x (code nesting): a
 * form of 0.77 MB took 73 s with it. Forms up to this many bytes of JSON keep it; larger ones
 * compile without it, in time linear in their size (docs/validation.md).
 */
const OPTIMIZED_BYTES = 64 * 1024

function compile (form: JsonObject, allErrors: boolean, ownProperties: boolean, optimize = true): Compiled {
  const envs: Env[] = []
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
    allErrors, // every failed constraint, for `explain` and for wide forms (NESTING); the verdict is the same
    logger: false,
    // draft §7.4: every $ref is a call of its own, so that src/form/bounded.ts can remember its verdicts.
    inlineRefs: false,
    code: {
      // draft §7.4: the body is the attacker's, so patterns run in time linear in the string.
      regExp: linearRegExp,
      optimize,
      process: (source, env) => {
        envs.push(envOf(env))
        return wrapSource(source, String(env?.validateName))
      }
    }
  })
  installBounded(ajv, bounded)
  addFormats.default(ajv, { mode: 'full', formats: [...FORMATS] })
  // Ajv resolves `$anchor` but lists no keyword for it, so strict mode would call it unknown
  // (ajv-validator/ajv#1854): it is an identifier, with nothing to validate.
  ajv.addKeyword('$anchor')
  for (const [name, check] of Object.entries(checks)) ajv.addFormat(name, check)
  ajv.removeKeyword('multipleOf')
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate: multipleOf })
  ajv.removeKeyword('uniqueItems')
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', validate: uniqueItems })
  return { validate: ajv.compile(form), envs, ajv }
}

// The form is checked against the 2020-12 meta-schema by the validator Ajv compiles from it, but
// compiled ahead of time (scripts/build-meta-schema.ts): compiling it in a serving process, as
// `validateSchema` does, left Node 20's process.nextTick on V8's slow path for good, and every
// route of the host a fifth dearer (docs/benchmarks.md, "A process-wide cost").
const validateMeta = metaSchemaCode as unknown as ((schema: unknown) => boolean) & { errors?: Array<{ instancePath: string, message?: string }> | null }
const META_SCHEMA = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/

/** draft §4: s must be a valid JSON Schema; a `$schema` other than 2020-12 throws here. */
function checkMetaSchema (form: JsonObject): void {
  const $schema = form['$schema']
  if ($schema !== undefined && !(typeof $schema === 'string' && META_SCHEMA.test($schema))) {
    throw new Error(`no schema with key or ref ${JSON.stringify($schema)}`)
  }
  if (!validateMeta(form)) {
    throw new Error(`schema is invalid: ${(validateMeta.errors ?? []).map((e) => `form${e.instancePath} ${e.message ?? ''}`).join(', ')}`)
  }
}

/**
 * Compiles the frozen form into the one validator that guards the address's acts (draft §5.2 (3)).
 * Throws a named error for any form the validator would not enforce to the letter.
 */
export function compileForm (form: Json, address: string, { allErrors = false, limits = DEFAULT_LIMITS }: CompileOptions = {}): ValidateFunction {
  if (!isObject(form)) throw new GPT_ERR_FORM_INVALID(address, 'the form must be a JSON Schema object')
  // First, in one pass that stops at the limits: nothing below recurses through a form deeper
  // than formDepth, and nothing costs more than formBytes allow (a form from JavaScript was
  // already checked by freezeJson; this one is for every other caller).
  const bytes = measureForm(form, address, limits)
  const seen: Seen = { keywords: new Set(), names: new Set(), schemas: new Set(), nesting: 0, deepest: { depth: 0, path: '' }, widest: { width: 0, path: '' } }
  audit(form, address, '', seen)
  const optimize = bytes <= OPTIMIZED_BYTES
  const flat = allErrors || seen.nesting > NESTING
  let compiled: Compiled
  try {
    checkMetaSchema(form)
    compiled = compile(form, flat, inherits(seen.names), optimize)
  } catch (error) {
    throw refusal(error, address, form, seen)
  }
  // Every subschema the validator compiled is audited, wherever its $ref found it: in `$defs`, or
  // in a place that is no schema location at all (`default`, `examples`, `enum`, `const`).
  const places = locate(form)
  const where = (schema: unknown): string => places.get(schema as object) ?? ''
  const inherited = inherits(seen.names)
  for (const env of compiled.envs) audit(env.schema as Json, address, where(env.schema), seen)
  // Ajv mis-evaluates this pair where the JSON Schema Test Suite probes it (scripts/schema-suite.ts).
  if (seen.keywords.has('unevaluatedProperties') && seen.keywords.has('if')) {
    throw new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, '"unevaluatedProperties" is not enforced correctly beside "if"')
  }
  const { ajv } = compiled
  refuseInPlaceCycles(compiled.envs, (baseId, ref) => resolveRef(ajv, baseId, ref), address, where)
  // A target reached only through a $ref may name a member such as "constructor": compile again
  // looking at own members only.
  if (!inherited && inherits(seen.names)) {
    compiled = compile(form, flat, true, optimize)
  }
  return compiled.validate
}

const inherits = (names: ReadonlySet<string>): boolean => [...names].some((name) => name in Object.prototype)

/** The JSON Pointer of every object and array of the form, which is a tree (see freezeJson). */
function locate (form: Json): Map<object, string> {
  const places = new Map<object, string>()
  const walk = (value: Json, at: string): void => {
    if (value === null || typeof value !== 'object') return
    places.set(value, at)
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}/${i}`))
    else for (const key of Object.keys(value)) walk((value as JsonObject)[key] as Json, `${at}/${escape(key)}`)
  }
  walk(form, '')
  return places
}

/** Past this many keywords and subschemas in one schema, running out of stack is put down to its width. */
const WIDE = 256

function refusal (error: unknown, address: string, form: JsonObject, seen: Seen): Error {
  if (error instanceof PatternError) return new GPT_ERR_FORM_PATTERN(address, `${JSON.stringify(error.pattern)}, in a subschema a $ref reaches: ${error.message}`)
  const refused = ajvRefusal(error)
  if (refused.kind === 'missing-ref') return new GPT_ERR_FORM_UNRESOLVED_REF(address, `"${refused.ref}"`)
  // The validator recurses as it follows $refs and nested subschemas: refs that name only one
  // another, some $id-relative refs, and chains nested some hundreds deep exhaust its stack.
  // A union's alternatives nest the validator's code one level each (else-if chains), so a wide
  // oneOf exhausts the stack as a deep form does: the message names whichever it is.
  if (error instanceof RangeError && !seen.keywords.has('$ref') && seen.widest.width > WIDE) {
    const { width, path } = seen.widest
    return new GPT_ERR_FORM_TOO_LARGE(address, `the validator ran out of stack compiling it: its widest schema, with ${width} keywords and subschemas, is at ${pointer(path)} (split a long union into nested ones, or list constants in one enum)`)
  }
  if (error instanceof RangeError && !seen.keywords.has('$ref')) {
    const { depth, path } = seen.deepest
    return new GPT_ERR_FORM_TOO_DEEP(address, `the validator ran out of stack compiling it: its deepest subschema, ${depth} schemas deep, is at ${pointer(path)} (nest it less, or lower limits.formDepth)`)
  }
  if (error instanceof RangeError) {
    return new GPT_ERR_FORM_UNRESOLVED_REF(address, 'the validator ran out of stack following its $refs: they lead only to one another, or nest too deep (an unrolled form past about 150 levels)')
  }
  // The walk above names these with their place; the validator meets them first only in a
  // subschema that a $ref reaches outside the schema locations (under "default", say).
  switch (refused.kind) {
    case 'unknown-keyword': return new GPT_ERR_FORM_UNKNOWN_KEYWORD(address, `${refused.detail}, in a subschema a $ref reaches`)
    case 'unknown-format': return unknownFormat(refused.name, address, form)
    case 'strict': return new GPT_ERR_FORM_NO_EFFECT(address, `${refused.detail}, in a subschema a $ref reaches`)
    case 'no-schema': return new GPT_ERR_FORM_INVALID(address, `${refused.message} (only draft 2020-12 forms are served)`)
    default: return new GPT_ERR_FORM_INVALID(address, refused.message)
  }
}

/**
 * Ajv says an unknown format is "ignored"; here it is refused, so the message says so, in our
 * words, with where the format is (the first place that names it) and which formats are checked.
 */
function unknownFormat (name: string, address: string, form: JsonObject): Error {
  const at = [...locate(form)].find(([schema]) => !Array.isArray(schema) && (schema as JsonObject)['format'] === name)?.[1]
  const checked = [...FORMATS, ...Object.keys(checks)].sort().join(', ')
  return new GPT_ERR_FORM_UNKNOWN_FORMAT(address, `"${name}"${at === undefined ? '' : ` at ${at}/format`}: it cannot be checked exactly, so it is refused (checked: ${checked})`)
}
