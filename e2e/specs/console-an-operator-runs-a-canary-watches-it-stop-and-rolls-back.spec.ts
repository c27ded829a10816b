import { operatorSession, type StackAddress } from '../support/console.ts'
import {
  alteredBuild,
  deployApi,
  publishAltered,
  remoteCommand,
  restoreBilling,
} from '../support/deploy-cli.ts'
import { deployTest as test, expect, type DeployStack } from '../support/deploy-stack.ts'
import { entryOf, visit } from '../support/deploy-visits.ts'

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

const address = (stack: DeployStack): StackAddress => ({
  appUrl: stack.appUrl,
  dataDir: stack.dataDir,
})

test('an operator starts a 20 % canary from the console, sees clients and errors arrive, watches it stop by itself, and rolls back with one click', async ({
  browser,
  request,
  deployStack: stack,
}) => {
  test.setTimeout(840_000)
  // billing 2.2.0 works and becomes stable (so 1.0.0 is the previous good); 2.3.0 passes every
  // publish check and throws in the browser.
  const good = await alteredBuild(stack, 'billing', 'console-good', ({ descriptor, files }) => {
    const entry = files.get(descriptor.entry) ?? new Uint8Array()
    files.set(
      descriptor.entry,
      new Uint8Array([...entry, ...new TextEncoder().encode('\n//2.2.0\n')]),
    )
  })
  expect((await publishAltered(stack, good, ['--version', '2.2.0'])).output).toContain(
    'billing 2.2.0 registered',
  )
  expect((await remoteCommand(stack, ['promote', 'billing', '2.2.0'])).code).toBe(0)
  const broken = await alteredBuild(stack, 'billing', 'console-broken', ({ descriptor, files }) => {
    files.set(
      descriptor.entry,
      new TextEncoder().encode("throw new Error('billing 2.3.0 fails on purpose')\n"),
    )
  })
  expect((await publishAltered(stack, broken, ['--version', '2.3.0'])).output).toContain(
    'billing 2.3.0 registered',
  )

  const operator = await operatorSession(browser, address(stack))
  const { page } = operator
  await page.goto('/console/remotes/billing')
  const remote = page.locator('main [data-tessera-remote="console"]')
  await expect(remote.getByRole('heading', { level: 1, name: 'billing versions' })).toBeVisible()
  const channels = remote.getByRole('region', { name: 'Channels' })
  await expect(channels).toContainText('2.2.0')

  // Start a 20 % canary of 2.3.0: the dialog shows before → after and asks first.
  await remote.getByRole('button', { name: 'Start canary of 2.3.0' }).click()
  const dialog = page.getByRole('dialog', { name: 'Start a canary of billing 2.3.0?' })
  await dialog.getByLabel('Share of users (%)').fill('20')
  await expect(dialog.getByRole('group', { name: 'Canary channel' })).toContainText('2.3.0 at 20 %')
  await dialog.getByRole('button', { name: 'Start canary' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(channels).toContainText('2.3.0 at 20 %')
  expect((await deployApi(request, stack, 'billing').state()).canary).toMatchObject({
    version: '2.3.0',
    percentage: 20,
  })

  // Visitors arrive; a fifth of them get 2.3.0, whose entry throws, and report it. The console
  // shows the canary's clients and errors as they come (live events and polling).
  await page.goto('/console')
  const card = page.getByRole('article', { name: 'billing' })
  const canaryRow = card.getByRole('row', { name: /^2\.3\.0 Canary, 20 %/ })
  const api = deployApi(request, stack, 'billing')
  let canaryVisitors = 0
  for (let visits = 0; visits < 120; visits++) {
    const visitor = await visit(browser, stack)
    if (entryOf(visitor.remotes, 'billing').channel === 'canary') {
      canaryVisitors += 1
      await expect
        .poll(() => visitor.reports.some((report) => report.version === '2.3.0'))
        .toBe(true)
      if (canaryVisitors === 1) {
        // Clients served and with errors arrive before the monitor judges. At least this one:
        // the operator's own page may be in the canary's share too (its header loads billing).
        const count = async (cell: number) =>
          Number(await canaryRow.getByRole('cell').nth(cell).textContent())
        await expect.poll(() => count(1)).toBeGreaterThanOrEqual(1)
        await expect.poll(() => count(2)).toBeGreaterThanOrEqual(1)
        await expect(canaryRow).toContainText('%')
        await expect(
          canaryRow.getByRole('img', { name: /errors for billing 2\.3\.0/ }),
        ).toBeVisible()
      }
    }
    await visitor.context.close()
    if ((await api.state()).canary.version === null) break
  }
  // The stack judges after 3 clients with a 50 % threshold (deploy-stack.ts): all of them failed
  // (3 visitors, or fewer when the operator's own page was one of the clients).
  expect(canaryVisitors).toBeGreaterThanOrEqual(1)
  expect(canaryVisitors).toBeLessThanOrEqual(3)

  // The console sees the auto-stop without a reload: no canary, the version withdrawn.
  await expect(card.getByText('Canary at 20 %')).toHaveCount(0)
  await page.goto('/console/remotes/billing')
  await expect(channels).toContainText(/Canary\s*none/)
  const withdrawn = remote.getByRole('article', { name: '2.3.0' })
  await expect(withdrawn.getByText('Withdrawn', { exact: true })).toBeVisible()
  await expect(withdrawn).toContainText('canary stopped automatically')

  // Roll back with one click (and its confirmation): stable goes back to 1.0.0.
  await channels.getByRole('button', { name: 'Roll back to 1.0.0' }).click()
  const rollback = page.getByRole('dialog', { name: 'Roll billing back to 1.0.0?' })
  await expect(rollback.getByRole('group', { name: 'Stable channel' })).toContainText(
    /2\.2\.0.*1\.0\.0/,
  )
  await rollback.getByRole('button', { name: 'Roll back' }).click()
  await expect(rollback).toHaveCount(0)
  await expect(channels).toContainText(/Stable\s*1\.0\.0/)
  expect((await api.state()).stable.version).toBe('1.0.0')

  // The audit log has the whole story, newest first.
  await page.goto('/console/audit?remote=billing')
  const log = page.getByRole('region', { name: 'Audit log entries, newest first' })
  await expect(log.getByRole('row').nth(1)).toContainText('Rolled back')
  await expect(log).toContainText('Canary stopped automatically')
  await expect(log).toContainText('Canary started')
  await operator.context.close()
})
