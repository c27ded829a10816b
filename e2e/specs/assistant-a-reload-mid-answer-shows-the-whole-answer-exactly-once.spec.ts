import {
  armFault,
  assistantPage,
  conversationIdIn,
  marker,
  storedMessages,
} from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a reload in the middle of an answer shows the words so far, the rest as they come, and the whole answer exactly once', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  const paced = marker()
  await armFault({ type: 'slow', tokensPerSecond: 12, match: paced })
  await chat.ask(`How do lighthouses work? ${paced}`)
  await expect(page).toHaveURL(/\/assistant\/conversations\/[0-9a-f-]{36}$/)
  await expect(chat.lastAnswer()).toContainText('(local model)')
  const id = conversationIdIn(page)
  const before = await chat.lastAnswer().innerText()

  await page.reload()
  // The answer is still being written: what was there comes back, and it keeps growing.
  await expect(chat.answers).toHaveCount(1)
  await expect(chat.stop).toBeVisible()
  const lengths = new Set<number>()
  await expect
    .poll(
      async () => {
        const text = await chat.lastAnswer().innerText()
        if (text.includes('(local model)') && !text.includes('Written by the Tessera'))
          lengths.add(text.length)
        return lengths.size
      },
      { intervals: [100] },
    )
    .toBeGreaterThanOrEqual(2)
  expect(Math.max(...lengths)).toBeGreaterThanOrEqual(before.trim().length)
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
  await expect.poll(async () => (await storedMessages(page, id)).at(-1)?.status).toBe('complete')
  // An answer shows as written until the Markdown renderer has loaded: wait for its list.
  await expect(chat.lastAnswer().locator('li').first()).toBeVisible()
  const followed = await chat.lastAnswer().innerText()
  // Each sentence once: nothing applied twice, nothing skipped.
  expect(followed.split('Written by the Tessera OpenAI stand-in')).toHaveLength(2)
  expect(followed.split('(local model)')).toHaveLength(2)

  // A fresh load renders the stored answer: exactly what the followed page shows.
  await page.reload()
  await expect(chat.answers).toHaveCount(1)
  await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
  await expect.poll(() => chat.lastAnswer().innerText()).toBe(followed)
  await expect(chat.send).toBeVisible()
  expect(pageErrors).toEqual([])
})
