// Gemini: the API's own documentation; @google/genai passes responseJsonSchema through unchanged.
import { tabled } from './common.ts'

export const gemini = tabled('gemini', 'Gemini API (responseJsonSchema)', 'Gemini API documentation, read 2026-12-01; @google/genai 2.32.0 passes the schema on unchanged', {
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
