import { expect, remotes, test } from '../support/fixtures.ts'

for (const remote of remotes) {
  test(`a visitor who opens ${remote.path} sees the ${remote.name} remote's page`, async ({
    page,
    pageErrors,
  }) => {
    await page.goto('/')
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: remote.label })
      .click()
    // A remote may send its base path on to its first page (/auth → /auth/profile when signed in).
    await expect(page).toHaveURL(new RegExp(`${remote.path}(/[a-z-]+)*$`))
    const outlet = page.locator(`main [data-tessera-remote="${remote.name}"]`)
    await expect(outlet.getByRole('heading', { level: 1 })).toBeVisible()
    expect(pageErrors).toEqual([])
  })
}
