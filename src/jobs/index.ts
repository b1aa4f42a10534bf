// Acts that outlive a request (Appendix B, "Long-Running Acts"; docs/jobs.md). The plugin entry
// wires this in: the act the core calls comes from here, and so do the job addresses' routes.
import type { FastifyInstance } from 'fastify'
import type { Settings } from '../address/options.ts'
import { installJobRoutes } from './routes.ts'
import { backgroundAct, drainingAct } from './run.ts'
import { resolveBackground } from './settings.ts'
import { SharedJobs } from './shared.ts'
import { localSource } from './source.ts'
import { JobStore } from './store.ts'

/**
 * The settings the core runs with: its act is the option's act given a context, draining an
 * async iterable it returns, or, with `background`, handing off to a job address after `after`.
 */
export async function installJobs (instance: FastifyInstance, settings: Settings): Promise<Settings> {
  const background = resolveBackground(settings.background, settings)
  if (background === undefined) return Object.freeze({ ...settings, act: drainingAct(settings) })
  const store = new JobStore(background)
  // With `share`, every instance reads a job from Redis; its act runs where it started.
  const shared = settings.share === undefined ? undefined : new SharedJobs(settings.share, background, store, instance.log, settings.path)
  await shared?.start()
  // Before the server waits for its connections: a stream open on a running job would hold it.
  instance.addHook('preClose', async () => {
    store.close()
    await shared?.close()
  })
  await installJobRoutes(instance, settings, background, shared ?? localSource(store))
  return Object.freeze({ ...settings, act: backgroundAct(settings, background, store) })
}

export { DEFAULT_BACKGROUND, type BackgroundSettings } from './settings.ts'
export type { Status } from './job.ts'
