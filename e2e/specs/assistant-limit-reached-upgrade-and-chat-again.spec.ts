import { assistantPage } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'
import { cards, payOnCheckoutPage, withStripeClock } from '../support/stripe.ts'

// A message near the longest allowed, of one-letter words: about 8 000 prompt tokens each, so a
// few of them use up the Free plan's 50 000 tokens quickly, with short answers.
const longMessage = (n: number) => `Summarise this, part ${n}: ${'a '.repeat(7_970)}`.trim()

test('a free user reaches the monthly limit, upgrades to Pro through checkout, and chats again', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(360_000)
  const chat = assistantPage(page)
  const header = page.getByRole('banner')
  await page.goto('/assistant')
  await expect(header.getByRole('link', { name: /^Assistant: 0 of 50.000 tokens/ })).toBeVisible()

  let sent = 0
  while (sent < 10) {
    sent += 1
    await chat.ask(longMessage(sent))
    await chat.settled()
    if (await chat.alert.isVisible()) break
  }
  await expect(chat.alert).toHaveAttribute('data-code', 'quota_exceeded')
  // The sentence for people; the request id as small print, to copy for support.
  await expect(chat.alert).not.toContainText('Code')
  await expect(chat.alert).toContainText(/Reference \S+/)
  await expect(chat.alert.getByRole('button', { name: 'Copy reference' })).toBeVisible()
  await expect(chat.alert).toContainText(/Upgrade your plan/)
  // Nothing was sent, so nothing more was counted, and the message can be sent again later.
  await expect(chat.thread.getByText('Not sent')).toBeVisible()
  expect(sent).toBeGreaterThan(1)

  await chat.alert.getByRole('link', { name: 'See plans' }).click()
  await expect(page).toHaveURL(/\/billing\/plans$/)
  const pro = page.getByRole('list', { name: 'Plans' }).getByRole('listitem', { name: 'Pro' })
  await withStripeClock(async () => {
    await pro.getByRole('button', { name: 'Subscribe to Pro' }).click()
    await expect(page).toHaveURL(/\/checkout\/cs_/)
    await payOnCheckoutPage(page, cards.succeeds)
    await expect(page.getByRole('heading', { level: 1, name: "You're on Pro" })).toBeVisible({
      timeout: 30_000,
    })
  })

  // The header's meter follows the new plan live.
  await expect(header.getByRole('link', { name: /of 1.000.000 tokens this month$/ })).toBeVisible()
  await page.getByRole('link', { name: 'Open the assistant' }).click()
  await expect(page).toHaveURL(/\/assistant$/)
  await chat.ask('Thanks for the upgrade. What can you do now?')
  await chat.settled()
  await expect(chat.alert).toHaveCount(0)
  await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
  await expect(
    page
      .getByRole('complementary', { name: 'Conversations' })
      .getByText(/of 1.000.000 tokens this month$/),
  ).toBeVisible()
  expect(pageErrors).toEqual([])
})
