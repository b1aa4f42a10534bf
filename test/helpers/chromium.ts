// The browser the page tests drive: Debian's Chromium (apt-get install chromium; or set CHROMIUM
// to another build), through playwright-core.
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium'

/** A headless Chromium that fetches nothing of its own; fails, saying how to get one, if there is none. */
export async function launchChromium (): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: apt-get install chromium (or set CHROMIUM to a Chromium build)`)
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync']
  })
}

/**
 * Records what a page complains of from now on: console errors and warnings, page errors and
 * (where scripts run) CSP violations. Call before it loads.
 */
export async function watchProblems (page: Page, scripts = true): Promise<() => Promise<string[]>> {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  if (!scripts) return async () => problems
  await page.addInitScript(`window.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI))`)
  return async () => [...problems, ...(await page.evaluate('window.violations') as string[]).map((v) => `CSP: ${v}`)]
}
