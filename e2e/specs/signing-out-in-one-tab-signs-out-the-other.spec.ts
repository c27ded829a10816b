import { expect, test } from '../support/fixtures.ts'

test('signing out in one tab signs out the other tab at once', async ({
  page,
  context,
  account,
}) => {
  const other = await context.newPage()
  await page.goto('/assistant')
  await other.goto('/billing')
  const menu = (p: typeof page) =>
    p.getByRole('button', { name: `${account.displayName}, account menu` })
  await expect(menu(page)).toBeVisible()
  await expect(menu(other)).toBeVisible()

  await menu(page).click()
  await page.getByRole('menuitem', { name: 'Sign out', exact: true }).click()

  await expect(page).toHaveURL(/\/auth\/sign-in/)
  await expect(other).toHaveURL(/\/auth\/sign-in\?next=%2Fbilling/)
  await expect(other.getByRole('link', { name: 'Sign in' })).toBeVisible()
  // The other tab says why it is on the sign-in page; the one that signed out has no need to.
  await expect(other.getByText('You signed out in another tab.')).toBeVisible()
  await expect(page.getByText(/signed out in another tab|another device/)).toHaveCount(0)
})
