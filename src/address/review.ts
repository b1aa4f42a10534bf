// What the plugin entry asks the linter about an address's form, once per edition (registration,
// then each update): one log line, the page's table of who can act, and the decoders the address
// requires. The core modules never import the linter; only the entry wires it in, through this.
import type { FastifyBaseLogger } from 'fastify'
import { GPT_ERR_FORM_DECODER, GPT_ERR_OPTION_INVALID } from '../errors.ts'
import type { JsonObject } from '../form/compile.ts'
import type { RuntimeVerdict } from '../lint/types.ts'
import { extents } from '../lint/extent.ts'
import { DECODERS, lint, runtimeVerdicts, type Finding } from '../lint/index.ts'
import type { ResolvedOptions, Settings } from './options.ts'
import { DEFAULT_MAX_DEPTH } from '../defaults.ts'

/**
 * The most a form's own bound raises the default maxDepth to. The validator compiles forms up to
 * about 390 levels of nesting (150 levels of a chain of $refs), so in practice a form that registers
 * gets its own bound; the ceiling keeps the parser's and validator's work per body bounded anyway.
 */
export const MAX_DEPTH_CEILING = 512
/** How many findings the log line names. */
const NAMED = 3
const DECODER_RULES = new Set(['decoder-refuses', 'decoder-loosens'])

/**
 * The maxDepth an address uses when its options name none: the default, or the depth the form
 * itself bounds its values to when that is deeper (draft §4.2: the published form is the limit),
 * up to MAX_DEPTH_CEILING. A form that leaves depth unbounded keeps the default.
 */
export function ownMaxDepth (form: JsonObject): number {
  let deepest: number
  try {
    deepest = extents(form)(form).maxDepth
  } catch {
    return DEFAULT_MAX_DEPTH // not a valid schema: compiling it, next, refuses it with a named error
  }
  return deepest === Infinity || deepest <= DEFAULT_MAX_DEPTH ? DEFAULT_MAX_DEPTH : Math.min(deepest, MAX_DEPTH_CEILING)
}

/**
 * What review adds to the options as resolved (the entry merges it in, in the same pass): maxDepth raised to the form's own bound
 * where the options name none (ownMaxDepth), and, unless `lint: false`, the review of each
 * edition's form.
 */
export function reviewed (settings: ResolvedOptions, maxDepthGiven: boolean, log: FastifyBaseLogger): Pick<Settings, 'maxDepth' | 'review'> {
  const own = maxDepthGiven ? settings.maxDepth : ownMaxDepth(settings.content.form)
  const raised = own > settings.maxDepth ? own : undefined
  const maxDepth = raised ?? settings.maxDepth
  if (settings.lint !== false) return { maxDepth, review: reviewer(settings, maxDepth, log, raised) }
  if (raised !== undefined) log.info({ address: settings.path, maxDepth: raised }, `gpt: maxDepth raised to ${raised}, the depth the form bounds its values to`)
  return { maxDepth, review: undefined }
}

/**
 * The review of each edition's form, for `settings.review`. Logs one line at info (never per
 * request) and throws GPT_ERR_FORM_DECODER when a required decoder would refuse or loosen the form.
 * `maxDepth` is the address's, `raised` the one the form's own bound gave it, if it did: said at
 * registration.
 */
function reviewer (settings: ResolvedOptions, maxDepth: number, log: FastifyBaseLogger, raised: number | undefined): (form: JsonObject) => readonly RuntimeVerdict[] {
  const require = settings.lint === false ? [] : settings.lint.require
  for (const name of require) {
    if (!(DECODERS as readonly string[]).includes(name)) {
      throw new GPT_ERR_OPTION_INVALID(settings.path, `"lint.require" names "${name}", which is not a decoder (one of ${DECODERS.join(', ')})`)
    }
  }
  let editions = 0
  return (form) => {
    const findings = lint(form, { bodyLimit: settings.bodyLimit, maxDepth, limits: settings.limits })
    const count = (severity: Finding['severity']): number => findings.filter((f) => f.severity === severity).length
    const [errors, warnings] = [count('error'), count('warning')]
    const named = findings.filter((f) => f.severity !== 'info').slice(0, NAMED).map((f) => `${f.rule} at ${f.pointer || '/'}`)
    const more = errors + warnings - named.length
    const depth = raised === undefined || editions > 0 ? '' : `; maxDepth raised to ${raised}, the depth the form bounds its values to`
    log.info({ address: settings.path, lint: { errors, warnings, first: named }, ...(raised === undefined ? {} : { maxDepth: raised }) },
      `gpt: lint${editions++ === 0 ? '' : ' (update)'}: ${errors} error(s), ${warnings} warning(s)` +
      `${named.length === 0 ? '' : `: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`}${depth}`)

    const unmet = findings.filter((f) => DECODER_RULES.has(f.rule) && f.decoders.some((d) => require.includes(d)))
      .sort((a, b) => Number(b.rule === 'decoder-refuses') - Number(a.rule === 'decoder-refuses'))
    if (unmet.length > 0) {
      throw new GPT_ERR_FORM_DECODER(settings.path, unmet.map((f) =>
        `${f.rule} at ${f.pointer || '/'} (${f.decoders.filter((d) => require.includes(d)).join(', ')}): ${f.message}`).join('; '))
    }
    return runtimeVerdicts(findings)
  }
}
