import { expect, test } from '../support/fixtures.ts'

test('changing the display name updates the header in every open tab without a reload', async ({
  page,
  context,
}) => {
  const other = await context.newPage()
  await other.goto('/assistant')
  await page.goto('/auth/profile')
  await page.getByLabel('Display name', { exact: true }).fill('Katherine Johnson')
  await page.getByRole('button', { name: 'Save name' }).click()

  await expect(page.getByRole('button', { name: 'Katherine Johnson, account menu' })).toBeVisible()
  await expect(other.getByRole('button', { name: 'Katherine Johnson, account menu' })).toBeVisible()
})
