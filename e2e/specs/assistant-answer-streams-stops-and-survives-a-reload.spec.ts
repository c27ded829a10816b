import {
  armFault,
  assistantPage,
  conversationIdIn,
  marker,
  modelRequests,
  storedMessages,
} from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a free user watches an answer stream in, stops the next one, and finds the partial answer after a reload', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New conversation')
  const usage = page.getByRole('complementary', { name: 'Conversations' })
  await expect(usage.getByText(/^0 of 50.000 tokens this month$/)).toBeVisible()

  // Paced so a person (and this test) can watch it arrive.
  const paced = marker()
  await armFault({ type: 'slow', tokensPerSecond: 15, match: paced })
  await chat.ask(`How do tides work? ${paced}`)
  await expect(page).toHaveURL(/\/assistant\/conversations\/[0-9a-f-]{36}$/)
  await expect(chat.thread.getByText(`How do tides work? ${paced}`, { exact: true })).toBeVisible()
  await expect(chat.stop).toBeVisible()
  // The answer grows while it streams: several different lengths are seen before it ends.
  const lengths = new Set<number>()
  await expect
    .poll(
      async () => {
        const text = await chat.lastAnswer().innerText()
        if (text.includes('(local model)')) lengths.add(text.length)
        return lengths.size
      },
      { intervals: [100] },
    )
    .toBeGreaterThanOrEqual(3)
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`How do tides work? ${paced}`)
  await expect(
    page.getByRole('navigation', { name: 'Your conversations' }).getByRole('link', {
      name: /How do tides work\?/,
    }),
  ).toBeVisible()
  // The month's usage moved, in the page and in the header, without a reload.
  await expect(usage.getByText(/^[1-9][\d\s,.]* of 50.000 tokens this month$/)).toBeVisible()
  await expect(
    page.getByRole('banner').getByRole('link', { name: /^Assistant: [1-9].* of 50.000 tokens/ }),
  ).toBeVisible()

  // A slow answer, stopped after its first words.
  const slow = marker()
  await armFault({ type: 'slow', tokensPerSecond: 8, match: slow })
  await chat.ask(`Tell me a long story about lighthouses ${slow}`)
  // The new answer's first words (the last answer is the first one's until the new one starts).
  await expect(chat.answers).toHaveCount(2)
  await expect(chat.lastAnswer()).toContainText('(local model)')
  await chat.stop.click()
  await expect(chat.lastAnswer()).toContainText('Stopped')
  await expect(chat.send).toBeVisible()
  await expect(chat.composer).toBeFocused()
  const answerText = async () => (await chat.lastAnswer().innerText()).split('\nStopped')[0]!.trim()
  const shown = await answerText()

  // The model was told to stop, and the BFF kept what had arrived, marked partial.
  await expect.poll(async () => (await modelRequests(slow))[0]?.outcome).toBe('aborted')
  const [request] = await modelRequests(slow)
  expect(request!.completionTokens).toBeLessThan(request!.plannedCompletionTokens)
  const id = conversationIdIn(page)
  await expect.poll(async () => (await storedMessages(page, id)).at(-1)?.status).toBe('partial')

  await page.reload()
  await expect(chat.answers).toHaveCount(2)
  await expect(chat.lastAnswer()).toContainText('Stopped')
  // What was on screen is kept; the BFF may have had a few more words in flight when Stop came.
  // Polled: after a reload the answer shows as written until the Markdown renderer has loaded.
  await expect.poll(answerText).toContain(shown)
  await expect(
    chat.thread.getByText(`Tell me a long story about lighthouses ${slow}`, { exact: true }),
  ).toBeVisible()
  expect(pageErrors).toEqual([])
})
