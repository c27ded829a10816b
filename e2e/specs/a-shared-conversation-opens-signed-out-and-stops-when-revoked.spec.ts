import { expectAccessibleInEveryLook } from '../support/a11y.ts'
import { assistantPage, marker } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('an author shares a conversation, a signed-out visitor reads it, and revoking ends the link', async ({
  page,
  browser,
  account,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  const word = marker()
  await page.goto('/assistant')
  await chat.ask(`How do ${word} otters keep warm?`)
  await chat.settled()
  const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? ''

  await page.getByRole('button', { name: 'Share link' }).click()
  const panel = page.getByRole('group', { name: 'Public link' })
  await expect(panel).toContainText('without signing in')
  await panel.getByRole('button', { name: 'Create link' }).click()
  const field = panel.getByRole('textbox', { name: 'Link' })
  await expect(field).toHaveValue(/\/shared\/[A-Za-z0-9_-]{32}$/)
  const url = await field.inputValue()
  await expect(panel.getByRole('button', { name: 'Copy link' })).toBeVisible()

  // A fresh browser with no session, as whoever the link is sent to.
  const visitorContext = await browser.newContext()
  const visitor = await visitorContext.newPage()
  const visitorErrors: string[] = []
  visitor.on('pageerror', (error) => visitorErrors.push(error.message))
  const opened = await visitor.goto(url)
  expect(opened?.status()).toBe(200)
  await expect(visitor).toHaveTitle(`${title} · Shared conversation · Tessera`)
  await expect(visitor.getByRole('heading', { level: 1 })).toHaveText(title)
  const messages = visitor.getByRole('list', { name: 'Messages' })
  await expect(
    messages.getByText(`How do ${word} otters keep warm?`, { exact: true }),
  ).toBeVisible()
  await expect(messages.getByRole('heading', { name: 'Answer', level: 2 })).toBeVisible()
  await expect(visitor.getByText(`Shared by ${account.displayName}`)).toBeVisible()
  await expect(visitor.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/)
  // Read-only and without the assistant's code: no composer, no script, no email anywhere.
  await expect(visitor.getByRole('textbox')).toHaveCount(0)
  await expect(visitor.locator('script')).toHaveCount(0)
  expect(await visitor.content()).not.toContain(account.email)
  await expectAccessibleInEveryLook(visitor, 'a shared conversation', async () => {
    await expect(visitor.getByRole('heading', { level: 1 })).toBeVisible()
  })

  // The author's list of what they shared, with Stop sharing.
  await page.goto('/assistant/shares')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Shared links')
  const item = page.getByRole('listitem').filter({ hasText: title })
  await expect(item).toBeVisible()
  await item.getByRole('button', { name: /Stop sharing/ }).click()
  await expect(page.getByText(`“${title}” is no longer shared`)).toBeVisible()
  await expect(page.getByRole('listitem').filter({ hasText: title })).toHaveCount(0)

  const revoked = await visitor.reload()
  expect(revoked?.status()).toBe(404)
  await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('This link no longer works')
  await expect(visitor.getByText('Ask them for a new link')).toBeVisible()
  await expect(visitor.getByText(`How do ${word} otters keep warm?`)).toHaveCount(0)
  await expectAccessibleInEveryLook(visitor, 'a revoked link', async () => {
    await expect(visitor.getByRole('heading', { level: 1 })).toBeVisible()
  })
  await visitorContext.close()
  expect(pageErrors).toEqual([])
  expect(visitorErrors).toEqual([])
})
