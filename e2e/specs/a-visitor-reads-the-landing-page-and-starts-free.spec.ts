import { e2eStack } from '../support/stack.ts'
import { anonymousTest, expect, test } from '../support/fixtures.ts'

const landingTitle = 'Ask anything, and keep every answer'

anonymousTest(
  'a visitor reads the landing page, drawn before any remote code, and starts free',
  async ({ page, pageErrors }) => {
    // Every request for remote code waits until the landing page has been read: the page must not
    // need any of it. The first one also notes whether the page was already there when it left.
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let landingShownAtFirstRemoteRequest: Promise<boolean> | null = null
    await page.route(`${e2eStack.cdnUrl}/**`, async (route) => {
      landingShownAtFirstRemoteRequest ??= page
        .getByRole('heading', { level: 1, name: landingTitle })
        .isVisible()
      await released
      await route.continue()
    })

    await page.goto('/')
    const main = page.getByRole('main')
    await expect(main.getByRole('heading', { level: 1, name: landingTitle })).toBeVisible()
    await expect(page).toHaveURL(/\/$/)
    await expect(page).toHaveTitle('Tessera · An AI assistant, free to start')
    const plans = main.getByRole('region', { name: 'Plans' })
    for (const [name, price, tokens] of [
      ['Free', '$0', '50,000 AI tokens a month'],
      ['Pro', '$15', '1,000,000 AI tokens a month'],
      ['Team', '$15 per seat / month, from 2 seats', '5,000,000 AI tokens a month per seat'],
    ] as const) {
      const card = plans.getByRole('listitem', { name, exact: true })
      await expect(card).toContainText(price)
      await expect(card).toContainText(tokens)
    }
    await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Privacy' })).toBeVisible()
    // Read with no remote file answered: whatever was asked for is still waiting.
    expect(await landingShownAtFirstRemoteRequest).not.toBe(false)
    release()

    // The footer's pages are the host's too.
    await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy' }).click()
    await expect(main.getByRole('heading', { level: 1, name: 'Privacy' })).toBeVisible()
    await expect(main).toContainText('they never reach Tessera, and Stripe holds them')
    await page.goBack()

    await main
      .getByRole('region', { name: landingTitle })
      .getByRole('link', { name: 'Start free' })
      .click()
    await expect(page).toHaveURL(/\/auth\/sign-up$/)
    const form = page.getByRole('form', { name: 'Create an account' })
    await expect(form.getByLabel('Email address')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create your Tessera account')
    expect(pageErrors).toEqual([])
  },
)

test('a signed-in user who opens / lands on the assistant, never on the landing page', async ({
  page,
  pageErrors,
}) => {
  // Remembers whether the landing's heading was ever drawn, however briefly.
  await page.addInitScript((title) => {
    new MutationObserver(() => {
      for (const heading of document.querySelectorAll('h1'))
        if (heading.textContent === title) sessionStorage.setItem('landing-seen', 'yes')
    }).observe(document, { childList: true, subtree: true, characterData: true })
  }, landingTitle)
  await page.goto('/')
  await expect(page).toHaveURL(/\/assistant$/)
  await expect(
    page.locator('main [data-tessera-remote="ai"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  expect(await page.evaluate(() => sessionStorage.getItem('landing-seen'))).toBeNull()

  // `/` is replaced in history: Back from the assistant does not bounce through it.
  await page.goto('/billing')
  await page.getByRole('link', { name: 'Tessera', exact: true }).click()
  await expect(page).toHaveURL(/\/assistant$/)
  await page.goBack()
  await expect(page).toHaveURL(/\/billing$/)
  expect(pageErrors).toEqual([])
})
