// Page loads by visitors of a deploy stack: what each one was served and which code it fetched.
import type { Browser, BrowserContext, Page } from '@playwright/test'
import type { DeployStack } from './deploy-stack.ts'
import { firstReadOf, nextPageOf } from './first-reads.ts'

interface SnapshotEntry {
  name: string
  version: string
  entryUrl: string
  channel?: string
  previous: { version: string; entryUrl: string } | null
}

export interface Visit {
  context: BrowserContext
  page: Page
  /** The snapshot the page booted with (its own `GET /api/remotes`). */
  remotes: SnapshotEntry[]
  /** Every remote entry (`…/remoteEntry.js`) the page requested, in order. */
  entries: string[]
  /** Error reports the page sent to `/api/telemetry/remote-errors`. */
  reports: Array<Record<string, unknown>>
  /** Loads the page again and returns the snapshot it booted with. */
  reload(): Promise<SnapshotEntry[]>
}

/**
 * A new visitor (fresh context: no cookie, no cache) opens billing's public plans page, whose code
 * is billing's (its header slot is for signed-in visitors only, so the sign-in page loads none).
 */
export async function visit(
  browser: Browser,
  stack: DeployStack,
  path = '/billing/plans',
): Promise<Visit> {
  const context = await browser.newContext({ baseURL: stack.appUrl })
  const page = await context.newPage()
  const entries: string[] = []
  const reports: Array<Record<string, unknown>> = []
  page.on('request', (request) => {
    if (request.url().endsWith('/remoteEntry.js')) entries.push(request.url())
    if (request.url().endsWith('/api/telemetry/remote-errors') && request.method() === 'POST') {
      reports.push(request.postDataJSON() as Record<string, unknown>)
    }
  })
  // The snapshot the page was given: it comes in the page (first-reads.ts).
  const load = async (go: () => Promise<unknown>) => {
    const loaded = nextPageOf(page)
    await go()
    return (await firstReadOf<{ remotes: SnapshotEntry[] }>(await loaded, '/api/remotes')).remotes
  }
  const remotes = await load(() => page.goto(path))
  return { context, page, remotes, entries, reports, reload: () => load(() => page.reload()) }
}

/** The entry of `name` in a snapshot (fails loudly when it is missing). */
export function entryOf(remotes: SnapshotEntry[], name: string): SnapshotEntry {
  const entry = remotes.find((remote) => remote.name === name)
  if (entry === undefined) throw new Error(`the snapshot has no ${name}`)
  return entry
}
