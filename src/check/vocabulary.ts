// The keywords a form uses to constrain values, found where 2020-12 puts subschemas (never a
// property name that happens to read "type").
import { applicators } from '../json/applicators.ts'
import { isObject as isJsonObject } from '../json/value.ts'

// Keywords whose value is a subschema, a list of them, or a map of them.
const ONE = applicators('one')
const LIST = applicators('list')
const MAP = applicators('map')

// Keywords that say nothing about which values are admitted by themselves: identifiers,
// annotations (draft §4.3: description carries no weight) and the applicators walked into.
const SILENT = new Set(['$schema', '$id', '$anchor', '$dynamicAnchor', '$comment', '$vocabulary', '$ref', '$defs', 'definitions',
  'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'contentEncoding', 'contentMediaType', 'contentSchema', 'properties', 'prefixItems', 'items', 'allOf', 'anyOf', 'oneOf'])

const isObject = isJsonObject as (value: unknown) => value is Record<string, unknown>

/** Every constraining keyword of `form`, each once. */
export function constraints (form: object): string[] {
  const found = new Set<string>()
  const stack: unknown[] = [form]
  while (stack.length > 0) {
    const schema = stack.pop()
    if (!isObject(schema)) continue
    for (const [keyword, value] of Object.entries(schema)) {
      if (!SILENT.has(keyword)) found.add(keyword)
      if (ONE.includes(keyword)) stack.push(value)
      // one at a time: spreading a list of 100,000 subschemas overflows the stack
      else if (LIST.includes(keyword) && Array.isArray(value)) for (const item of value) stack.push(item)
      else if (MAP.includes(keyword) && isObject(value)) for (const member of Object.values(value)) stack.push(member)
    }
  }
  return [...found]
}
