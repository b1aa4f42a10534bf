import { GPT_ERR_FORM_REF_CYCLE } from '../errors.ts'
import { applicators } from '../json/applicators.ts'
import { escape } from '../json/pointer.ts'
import type { Env } from './ajv.ts'

export type { Env }

// Keywords that apply their subschemas to the very value their schema is applied to.
const IN_PLACE = applicators('one', 'in-place')
const IN_PLACE_LISTS = applicators('list', 'in-place')
const IN_PLACE_MAPS = applicators('map', 'in-place')

interface Step {
  readonly to: Env
  /** Where the `$ref` stands, relative to its environment's schema. */
  readonly at: string
}

/**
 * A `$ref` cycle that comes back to a schema without descending into the value (`a: {anyOf: [{$ref:
 * a}]}`) never ends: JSON Schema leaves its meaning undefined and a validator recurses until the
 * stack runs out. Such a form is refused, naming the cycle (draft §7.4). The validator still fails
 * closed on any cycle this walk could not see (src/form/bounded.ts).
 */
export function refuseInPlaceCycles (envs: readonly Env[], resolver: (baseId: string, ref: string) => string, address: string,
  where: (schema: unknown) => string): void {
  const steps = new Map(envs.map((env) => [env, inPlaceRefs(env, resolver)]))
  const done = new Set<Env>()
  const path: Array<{ env: Env, at: string }> = []
  const visit = (env: Env): void => {
    if (done.has(env)) return
    const open = path.findIndex((entry) => entry.env === env)
    if (open !== -1) {
      const loop = path.slice(open).map((entry) => `the $ref at ${where(entry.env.schema)}${entry.at}`).join(', then ')
      throw new GPT_ERR_FORM_REF_CYCLE(address, `${loop}: back at ${where(env.schema) || 'the root'} on the same value, with nothing consumed`)
    }
    for (const step of steps.get(env) ?? []) {
      path.push({ env, at: step.at })
      visit(step.to)
      path.pop()
    }
    done.add(env)
  }
  for (const env of envs) visit(env)
}

/** The `$ref`s met on the same value as the environment's schema, with what each resolves to. */
function inPlaceRefs (env: Env, resolver: (baseId: string, ref: string) => string): Step[] {
  const steps: Step[] = []
  const walk = (schema: unknown, baseId: string, at: string): void => {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return
    const object = schema as Record<string, unknown>
    // The same base URI as the validator's: a subschema's $id changes it, the environment's own is in it.
    if (at !== '' && typeof object['$id'] === 'string') baseId = resolver(baseId, object['$id'])
    const ref = object['$ref']
    if (typeof ref === 'string') {
      const to = (ref === '#' || ref === '#/') && baseId === env.root.baseId ? env.root : env.root.refs[resolver(baseId, ref)]
      if (isEnv(to)) steps.push({ to, at: `${at}/$ref` })
    }
    for (const key of IN_PLACE) walk(object[key], baseId, `${at}/${key}`)
    for (const key of IN_PLACE_LISTS) {
      const list = object[key]
      if (Array.isArray(list)) list.forEach((item, i) => walk(item, baseId, `${at}/${key}/${i}`))
    }
    for (const key of IN_PLACE_MAPS) {
      const map = object[key]
      if (map !== null && typeof map === 'object') {
        for (const [name, item] of Object.entries(map)) walk(item, baseId, `${at}/${key}/${escape(name)}`)
      }
    }
  }
  walk(env.schema, env.baseId, '')
  return steps
}

const isEnv = (value: unknown): value is Env =>
  value !== null && typeof value === 'object' && 'schema' in value && 'root' in value
