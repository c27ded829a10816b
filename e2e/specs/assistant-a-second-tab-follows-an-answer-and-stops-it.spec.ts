import {
  armFault,
  assistantPage,
  conversationIdIn,
  marker,
  modelRequests,
  storedMessages,
} from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a second tab opened mid-answer follows it word by word, and its Stop stops the answer in both tabs', async ({
  page,
  context,
  pageErrors,
}) => {
  const first = assistantPage(page)
  await page.goto('/assistant')
  const paced = marker()
  // Slow enough (about a minute for the whole answer) that a second tab loading on a busy machine
  // still finds it being written; the test stops it long before it ends.
  await armFault({ type: 'slow', tokensPerSecond: 3, match: paced })
  await first.ask(`Tell me a long story about harbours ${paced}`)
  await expect(page).toHaveURL(/\/assistant\/conversations\/[0-9a-f-]{36}$/)
  await expect(first.lastAnswer()).toContainText('(local model)')
  const id = conversationIdIn(page)

  const tab = await context.newPage()
  const secondErrors: string[] = []
  tab.on('pageerror', (error) => secondErrors.push(error.message))
  const second = assistantPage(tab)
  await tab.goto(`/assistant/conversations/${id}`)
  await expect(second.answers).toHaveCount(1)
  // The second tab sees the answer grow while the first one streams it.
  const lengths = new Set<number>()
  await expect
    .poll(
      async () => {
        lengths.add((await second.lastAnswer().innerText()).length)
        return lengths.size
      },
      { intervals: [100] },
    )
    .toBeGreaterThanOrEqual(3)

  await second.stop.click()
  await expect(second.lastAnswer()).toContainText('Stopped')
  await expect(first.lastAnswer()).toContainText('Stopped')
  await expect(second.send).toBeVisible()
  await expect(first.send).toBeVisible()
  await expect.poll(async () => (await modelRequests(paced))[0]?.outcome).toBe('aborted')
  await expect.poll(async () => (await storedMessages(page, id)).at(-1)?.status).toBe('partial')

  // Both tabs show the stored partial answer, each word once. It is Markdown, and a stop can cut
  // it inside emphasis (`**long*`, shown as `*long`) or after a list's `-` (shown as a bullet):
  // compare the words.
  const words = (text: string) =>
    text
      .replaceAll(/[*_`]/g, '')
      .split(/\s+/)
      .filter((word) => /[\p{L}\p{N}]/u.test(word))
  const stored = (await storedMessages(page, id)).at(-1)!.content
  const lastWords = words(stored).slice(-3).join(' ')
  const shownIn = async (tab: typeof first) =>
    (await tab.lastAnswer().innerText()).split('\nStopped')[0]!.trim()
  // Polled: an answer shows as written until the Markdown renderer has loaded in its tab.
  await expect.poll(async () => (await shownIn(second)) === (await shownIn(first))).toBe(true)
  const shown = await shownIn(first)
  expect(words(shown).join(' ')).toContain(lastWords)
  expect(shown.split('(local model)')).toHaveLength(2)
  expect(pageErrors).toEqual([])
  expect(secondErrors).toEqual([])
})
