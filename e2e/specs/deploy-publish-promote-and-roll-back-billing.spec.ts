import { publishCommand, remoteCommand, restoreBilling } from '../support/deploy-cli.ts'
import { deployTest as test, expect } from '../support/deploy-stack.ts'
import { entryOf, visit } from '../support/deploy-visits.ts'
import { firstReadOf, nextPageOf, withoutFirstReads } from '../support/first-reads.ts'

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

test('the billing team publishes 1.1.0 and promotes it while the host runs: new page loads get it, an open page offers a reload, auth and AI are untouched, and a rollback brings 1.0.0 back', async ({
  browser,
  request,
  deployStack: stack,
}) => {
  test.setTimeout(360_000)
  // The page the host build made (its first reads' answers are this request's).
  const hostPage = async () =>
    withoutFirstReads(
      await (await request.get(`${stack.appUrl}/`, { headers: { accept: 'text/html' } })).text(),
    )
  const hostBefore = await hostPage()

  const before = await visit(browser, stack)
  expect(entryOf(before.remotes, 'billing').version).toBe('1.0.0')
  await expect
    .poll(() => before.entries)
    .toContain(`${stack.cdnUrl}/billing/1.0.0/assets/remoteEntry.js`)
  // This page stays open through the promote below.
  const updated = before.page.getByRole('status').filter({ hasText: 'been updated' })

  const published = await publishCommand(stack, 'billing', ['--version', '1.1.0'])
  expect(published.output).toContain(
    `billing 1.1.0 registered ${stack.cdnUrl}/billing/1.1.0/assets/remoteEntry.js`,
  )
  expect(published.output).toContain('next: npm run remote -- promote billing 1.1.0')
  expect(published.code).toBe(0)

  // Publishing alone changes what nobody gets.
  const unchanged = await visit(browser, stack)
  expect(entryOf(unchanged.remotes, 'billing').version).toBe('1.0.0')
  await unchanged.context.close()

  // Publishing told no open page anything either.
  await expect(updated).toHaveCount(0)

  const promoted = await remoteCommand(stack, ['promote', 'billing', '1.1.0'])
  expect(promoted.output).toMatch(/billing stable: 1\.0\.0 → 1\.1\.0 \(revision \d+ → \d+\)/)
  expect(promoted.code).toBe(0)

  // The page opened before the promote hears of it, keeps working, and offers a reload that
  // brings the new version.
  await expect(updated).toHaveText(
    /^Billing has been updated since this page opened\. Reload to use the new version/,
    { timeout: 15_000 },
  )
  const reloaded = nextPageOf(before.page)
  await before.page.getByRole('button', { name: 'Reload' }).click()
  const afterReload = (
    await firstReadOf<{ remotes: typeof before.remotes }>(await reloaded, '/api/remotes')
  ).remotes
  expect(entryOf(afterReload, 'billing').version).toBe('1.1.0')
  await expect
    .poll(() => before.entries)
    .toContain(`${stack.cdnUrl}/billing/1.1.0/assets/remoteEntry.js`)
  await expect(updated).toHaveCount(0)
  await before.context.close()

  const after = await visit(browser, stack)
  const billing = entryOf(after.remotes, 'billing')
  expect(billing).toMatchObject({
    version: '1.1.0',
    entryUrl: `${stack.cdnUrl}/billing/1.1.0/assets/remoteEntry.js`,
    previous: { version: '1.0.0' },
  })
  await expect.poll(() => after.entries).toContain(billing.entryUrl)
  expect(after.entries.filter((url) => url.includes('/billing/1.0.0/'))).toEqual([])
  for (const name of ['auth', 'ai']) {
    expect(entryOf(after.remotes, name)).toEqual(entryOf(before.remotes, name))
  }
  // The host itself was neither rebuilt nor redeployed.
  expect(await hostPage()).toBe(hostBefore)
  // The page still works: the visitor can reach the sign-in form.
  await expect(after.page.getByRole('main').getByRole('heading', { level: 1 })).toBeVisible()
  await after.context.close()

  const rolledBack = await remoteCommand(stack, ['rollback', 'billing'])
  expect(rolledBack.output).toMatch(/billing stable: 1\.1\.0 → 1\.0\.0 \(revision \d+ → \d+\)/)
  expect(rolledBack.output).toContain(
    'billing 1.1.0 is withdrawn: rollback will not pick it again.',
  )
  expect(rolledBack.code).toBe(0)

  const back = await visit(browser, stack)
  expect(entryOf(back.remotes, 'billing').version).toBe('1.0.0')
  await expect
    .poll(() => back.entries)
    .toContain(`${stack.cdnUrl}/billing/1.0.0/assets/remoteEntry.js`)
  await back.context.close()

  const list = await remoteCommand(stack, ['list', 'billing'])
  expect(list.output).toContain('stable   1.0.0')
  expect(list.output).toMatch(/1\.1\.0 +registered .* withdrawn: rolled back by billing/)
  expect(list.output).toMatch(/rolled back to 1\.0\.0 from 1\.1\.0 by billing/)
  expect(list.output).toMatch(/promoted 1\.1\.0 \(was 1\.0\.0\) by billing/)
})
