// OpenAI Structured Outputs, strict: openai-node's toStrictJsonSchema and the API's documented subset.
import { IRREGULAR } from '../xgrammar.ts'
import { isObject, listOf, literals, ownTypes, refTarget, resolve, type Json, type JsonObject } from '../schema.ts'
import type { Judgement, Profile } from './profile.ts'
import { each, nullable, OBJECT, present } from './common.ts'

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

export const openai: Profile = {
  name: 'openai-strict',
  version: 'openai 6.49.0 toStrictJsonSchema (run in the tests); the Structured Outputs guide, read 2026-12-01',
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
