// Anthropic structured outputs: what @anthropic-ai/sdk's transformJSONSchema keeps, moves into
// the description, or throws on; and what the API refuses (recursive schemas).
import { isObject, literals } from '../schema.ts'
import type { Judgement, Profile } from './profile.ts'
import { ASSERTIONS, each, oneOf, typeBesideLiterals } from './common.ts'

const ANTHROPIC_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'])
export const anthropic: Profile = {
  name: 'anthropic',
  version: '@anthropic-ai/sdk 1.14.0 transformJSONSchema (run in the tests); the API documentation, read 2026-12-01',
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
