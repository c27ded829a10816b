import { e2eStack } from '../support/stack.ts'
import { expect, recordRemoteScripts, remotes, test } from '../support/fixtures.ts'

test('a visitor sees every navigation item before any remote code is requested', async ({
  page,
  pageErrors,
}) => {
  let navCountAtFirstRemoteRequest: Promise<number> | null = null
  await page.route(`${e2eStack.cdnUrl}/**`, async (route) => {
    // The first request to the cdn is held until the nav has been counted.
    navCountAtFirstRemoteRequest ??= page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link')
      .count()
    await navCountAtFirstRemoteRequest
    await route.continue()
  })
  await page.goto('/assistant')
  const nav = page.getByRole('navigation', { name: 'Main' })
  for (const remote of remotes)
    await expect(nav.getByRole('link', { name: remote.label })).toBeVisible()
  await expect(
    page.locator('[data-tessera-remote="ai"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  expect(await navCountAtFirstRemoteRequest).toBe(remotes.length)
  expect(pageErrors).toEqual([])
})

test('a route fetches only the remotes it shows: its own and the header slots', async ({
  page,
}) => {
  const scripts = recordRemoteScripts(page)
  await page.goto('/billing')
  await expect(
    page.locator('[data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  const remotesFetched = new Set(scripts.map((url) => new URL(url).pathname.split('/')[1]))
  // Every remote fills the header.end slot (user menu, plan badge, usage meter), so each loads on
  // every page — and nothing else does: no remote is fetched twice under another version.
  expect([...remotesFetched].sort()).toEqual(['ai', 'auth', 'billing'])
  expect(
    new Set(scripts.map((url) => new URL(url).pathname.split('/').slice(1, 3).join('/'))).size,
  ).toBe(3)
})
