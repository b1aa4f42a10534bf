// llguidance: parser/src/json/schema.rs refuses every known keyword outside IMPLEMENTED (unless
// lenient, which its callers do not set by default); compiler.rs builds the grammar.
import { isObject, listOf } from '../schema.ts'
import { each, num, present, tabled } from './common.ts'

export const llguidance = tabled('llguidance', 'llguidance (vLLM guidance backend, llama.cpp with LLGuidance, Azure)', {
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
