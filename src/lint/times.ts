// draft §5.3: a refused body is a bare 204, so an actor that writes a time as people do ("14:30")
// never learns why. RFC 3339 wants the seconds and an offset; the form can show them.
import { isObject, type Json, type Place } from './schema.ts'
import { TIME_EXAMPLES, type Finding } from './types.ts'

// What an example must look like to show the shape: the date (for date-time), then the clock.
const CLOCK = String.raw`\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$`
const SHAPES: ReadonlyMap<string, RegExp> = new Map([['time', new RegExp(`^${CLOCK}`)], ['date-time', new RegExp(String.raw`^\d{4}-\d{2}-\d{2}[Tt]${CLOCK}`)]])
// What people write instead, and the bare 204 they get for it.
const WRITTEN: ReadonlyMap<string, string> = new Map([['time', '"14:30" or "14:30:00"'], ['date-time', '"2026-12-07T14:30" or "2026-12-07T14:30:00"']])

export function times (schema: Json, place: Place): Finding[] {
  if (!isObject(schema) || typeof schema['format'] !== 'string') return []
  const { format } = schema
  const shape = SHAPES.get(format)
  if (shape === undefined) return []
  // an example of the full shape shows it to the actor, and on the page
  const examples = Array.isArray(schema['examples']) ? schema['examples'] : []
  if (examples.some((example) => typeof example === 'string' && shape.test(example))) return []
  const example = TIME_EXAMPLES.get(format) as string
  return [{
    rule: 'time-strict',
    severity: 'warning',
    pointer: `${place.pointer}/format`,
    message: `"format": "${format}" wants the seconds and an offset (RFC 3339), as "${example}": ${WRITTEN.get(format) ?? ''} is refused with a bare 204. ` +
      `Show actors the shape: "examples": ["${example}"].`,
    section: '5.3',
    decoders: []
  }]
}
