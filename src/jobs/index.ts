// Acts that outlive a request (Appendix B, "Long-Running Acts"; docs/jobs.md). The plugin entry
// wires this in: the act the core calls comes from here, and so do the job addresses' routes.
import type { FastifyInstance } from 'fastify'
import type { Door } from '../address/door.ts'
import type { CoreAct } from '../address/act.ts'
import type { Settings } from '../address/options.ts'
import { installJobRoutes } from './routes.ts'
import { backgroundAct, drainingAct, jobsPath } from './run.ts'
import { SharedJobs } from './shared.ts'
import { localSource } from './source.ts'
import { JobStore } from './store.ts'

/** What the entry gets back: the act as the core calls it, and the address's jobs, if any. */
export interface Installed {
  readonly act: CoreAct
  readonly background: Backgrounded | undefined
}

/** What another room (the MCP bridge) knows of an address's jobs: where they are, reached by their own routes. */
export interface Backgrounded {
  /** The job addresses' prefix, `<address>/jobs`. */
  readonly base: string
  /** ms suggested between two looks at a running job (`poll`). */
  readonly poll: number
  /** ms a finished job is kept (`keep`). */
  readonly keep: number
}

/**
 * The act as the core calls it: the option's act given a context, draining an async iterable it
 * returns, or, with `background`, handing off to a job address after `after`.
 */
export async function installJobs (instance: FastifyInstance, settings: Settings, door: Door): Promise<Installed> {
  const { background } = settings
  if (background === undefined) return { act: drainingAct(settings), background: undefined }
  const store = new JobStore(background)
  // With `share`, every instance reads a job from Redis; its act runs where it started.
  const shared = settings.share === undefined ? undefined : new SharedJobs(settings.share, background, store, instance.log, settings.path)
  await shared?.start()
  // Before the server waits for its connections: a stream open on a running job would hold it.
  instance.addHook('preClose', async () => {
    store.close()
    await shared?.close()
  })
  const source = shared ?? localSource(store)
  await installJobRoutes(instance, settings, background, source)
  return {
    act: backgroundAct(settings, background, store, door),
    background: Object.freeze({ base: jobsPath(settings.path), poll: background.poll, keep: background.keep })
  }
}

export { DEFAULT_BACKGROUND, type BackgroundSettings } from './settings.ts'
export type { Status } from './job.ts'
export { UNAVAILABLE } from './source.ts'
export type { Ran, StartAct, Waiting } from './run.ts'
