import { expect, test } from '../support/fixtures.ts'

test('a change made after a tab read its session, before its live stream opened, still reaches it', async ({
  page,
  context,
  browser,
}) => {
  // A second browser signed in to the same account (another device: no tab-to-tab channel), whose
  // stream is held back as on a slow network: it has read its session (the header shows the
  // account) but hears no event until the name has been changed on the first.
  const device = await browser.newContext({ storageState: await context.storageState() })
  const other = await device.newPage()
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  await other.route('**/api/events*', async (route) => {
    await held
    await route.continue()
  })
  await other.goto('/assistant')
  await expect(other.getByRole('button', { name: /, account menu$/ })).toBeVisible()

  await page.goto('/auth/profile')
  await page.getByLabel('Display name', { exact: true }).fill('Dorothy Vaughan')
  await page.getByRole('button', { name: 'Save name' }).click()
  await expect(page.getByRole('button', { name: 'Dorothy Vaughan, account menu' })).toBeVisible()

  // The stream opens from where the session was read, so the BFF replays the change to it.
  release()
  await expect(other.getByRole('button', { name: 'Dorothy Vaughan, account menu' })).toBeVisible()
  await device.close()
})
