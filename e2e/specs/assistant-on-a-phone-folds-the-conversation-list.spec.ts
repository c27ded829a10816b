import { assistantPage } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test.use({ viewport: { width: 390, height: 844 } })

test('on a phone the conversation list opens as a panel, and the usage sits above the composer', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  await chat.ask('First question on a phone')
  await chat.settled()
  const list = page.getByRole('navigation', { name: 'Your conversations' })
  await expect(list).toBeHidden()
  await expect(
    page.getByText(/^[1-9][\d\s,.]* of 50.000 tokens this month$/).filter({ visible: true }),
  ).toBeVisible()
  // Nothing is wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)

  const toggle = page.getByRole('button', { name: 'Conversations' })
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-expanded', 'true')
  // Focus moves into the panel.
  await expect(page.getByRole('button', { name: 'New conversation' })).toBeFocused()
  await expect(list.getByRole('link', { name: /First question on a phone/ })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(list).toBeHidden()
  await expect(toggle).toBeFocused()

  await toggle.click()
  await page.getByRole('button', { name: 'New conversation' }).click()
  await expect(list).toBeHidden()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New conversation')
  await expect(chat.composer).toBeFocused()

  await toggle.click()
  await list.getByRole('link', { name: /First question on a phone/ }).click()
  await expect(list).toBeHidden()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('First question on a phone')
  await expect(chat.thread.getByText('First question on a phone', { exact: true })).toBeVisible()
  expect(pageErrors).toEqual([])
})
