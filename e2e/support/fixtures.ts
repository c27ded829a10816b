import { test as base, expect, type Page, type Route } from '@playwright/test'
import { e2eStack } from './stack.ts'

export const remotes = [
  { name: 'ai', label: 'Assistant', path: '/assistant' },
  { name: 'billing', label: 'Billing', path: '/billing' },
  { name: 'auth', label: 'Account', path: '/auth' },
] as const
export type RemoteCase = (typeof remotes)[number]

/** Every request for one remote's files on the cdn. */
export const remoteFiles = (name: string): string => `${e2eStack.cdnUrl}/${name}/**`

/** Requests the page made for remote JavaScript on the cdn, in order. */
export function recordRemoteScripts(page: Page): string[] {
  const urls: string[] = []
  page.on('request', (request) => {
    const url = request.url()
    if (url.startsWith(e2eStack.cdnUrl) && url.endsWith('.js')) urls.push(url)
  })
  return urls
}

/** Page errors (uncaught exceptions) seen during a test; each test asserts on them. */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await use(errors)
  },
})

/** Rewrites the registry snapshot the browser receives, leaving the BFF untouched. */
export async function editSnapshot(
  page: Page,
  edit: (snapshot: { remotes: Array<Record<string, unknown>> }) => void,
): Promise<void> {
  await page.route('**/api/remotes', async (route: Route) => {
    const response = await route.fetch()
    const snapshot = (await response.json()) as { remotes: Array<Record<string, unknown>> }
    edit(snapshot)
    await route.fulfill({ response, json: snapshot })
  })
}

export { expect }
