import { html, type Html } from './escape.ts'

export { LIVE_SCRIPT } from './live-script.ts'

/** What the page of a running job needs to follow it live. */
export interface Live {
  /** The job's progress stream (its `events`). */
  readonly events: string
  /** The seq of the last event the page already shows. */
  readonly after: number
  /** Seconds between two reloads of the page where no script runs. */
  readonly refresh: number
}

/** Where no script runs, the page of a running job reloads itself every poll instead. */
export const liveHead = (live: Live): Html => html`<noscript><meta http-equiv="refresh" content="${live.refresh}"></noscript>\n`

/** The line that says the job's state, carrying where its stream is and what the page shows. */
export const liveState = (live: Live): Html =>
  html`<p id="progress" class="lead" role="status" aria-live="polite" data-state="loading" data-events="${live.events}" data-after="${live.after}">Working. Without JavaScript this page reloads itself every ${live.refresh} s to show its progress.</p>\n`
