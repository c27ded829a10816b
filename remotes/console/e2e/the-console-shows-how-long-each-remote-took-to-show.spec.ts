// console's journeys, run by the end-to-end suite (e2e/playwright.config.ts, project `remotes`).
import { expect, test } from '@playwright/test'
import { operatorSession } from '@tessera/e2e/support/console.ts'
import { e2eStack } from '@tessera/e2e/support/stack.ts'

const stack = { appUrl: e2eStack.appUrl, dataDir: e2eStack.env.TESSERA_DATA_DIR }

interface ReportedLoad {
  remote: string
  target: string
  entryMs: number
  exposeMs: number
  mountMs: number
  readyMs: number
  preloaded: boolean
}

test('a page reports how long each remote took to show, and the console shows it per version', async ({
  browser,
}) => {
  const { page, context } = await operatorSession(browser, stack)
  const reported = page.waitForRequest(
    (request) =>
      request.url().endsWith('/api/telemetry/remote-loads') && request.method() === 'POST',
  )
  await page.goto('/billing')
  await expect(
    page.locator('[data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  // The page's own remote, then the header's slots: one report, each remote once.
  const { loads } = (await reported).postDataJSON() as { loads: ReportedLoad[] }
  const billing = loads.find((load) => load.remote === 'billing')
  expect(billing).toMatchObject({ target: 'route' })
  expect(billing?.readyMs).toBeGreaterThanOrEqual(
    (billing?.entryMs ?? 0) + (billing?.exposeMs ?? 0),
  )
  expect(new Set(loads.map((load) => load.remote)).size).toBe(loads.length)

  await page.goto('/console')
  const card = page.getByRole('article', { name: 'billing' })
  const table = card.getByRole('table', { name: 'Traffic of billing by version' })
  await expect(table.getByRole('columnheader', { name: /Time to show/ })).toBeVisible()
  // The stable version's row: a median and a 95th percentile, and what they are made of.
  await expect(table.getByRole('row').nth(1)).toContainText(/\d+ (ms|s) \/ .*\d+ loads?/)
  await context.close()
})
