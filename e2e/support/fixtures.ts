import { test as base, expect, type Page } from '@playwright/test'
import { signedInAccount } from './identity.ts'
import { navigableRemotes, type RemoteCase } from './remotes.ts'
import { e2eStack } from './stack.ts'

/** Every remote with a page, from the folders under `remotes/` (support/remotes.ts). */
export const remotes: readonly RemoteCase[] = navigableRemotes()
export type { RemoteCase }

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

interface Fixtures {
  /** Page errors (uncaught exceptions) seen during a test; each test asserts on them. */
  pageErrors: string[]
  /** The confirmed account the page is signed in as. */
  account: { email: string; displayName: string }
}

/** A visitor who has not signed in: for the identity journeys themselves. */
export const anonymousTest = base.extend<Pick<Fixtures, 'pageErrors'>>({
  pageErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await use(errors)
  },
})

/** A signed-in visitor (a fresh account per test): the product's pages are behind sign-in. */
export const test = anonymousTest.extend<Pick<Fixtures, 'account'>>({
  account: async ({ context }, use) => {
    await use(await signedInAccount(context, 'visitor'))
  },
  page: async ({ page, account }, use) => {
    expect(account.email).toContain('@')
    await use(page)
  },
})

export { expect }
