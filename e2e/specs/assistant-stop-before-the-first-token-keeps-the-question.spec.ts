import { armFault, assistantPage, marker, modelRequests } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('Stop pressed before the first token keeps the question and an empty stopped answer, now and after a reload', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  await chat.ask('What is a lighthouse?')
  await chat.settled()
  await expect(chat.answers).toHaveCount(1)

  // The model never starts: Stop comes before any word (and before the server has said what it
  // stored for the send, which it says with the first token).
  const stalled = marker()
  await armFault({ type: 'stall', match: stalled })
  const question = `Why do lighthouses blink? ${stalled}`
  await chat.ask(question)
  await chat.stop.click()
  await expect(chat.send).toBeVisible()

  await expect(chat.answers).toHaveCount(2)
  await expect(chat.lastAnswer()).toContainText('Stopped')
  await expect(chat.lastAnswer()).not.toContainText('Still being written')
  await expect(chat.thread.getByText(question, { exact: true })).toBeVisible()
  // The model was told to stop, or never asked.
  await expect
    .poll(async () => (await modelRequests(stalled)).every((r) => r.outcome === 'aborted'))
    .toBe(true)

  await page.reload()
  await expect(chat.answers).toHaveCount(2)
  await expect(chat.lastAnswer()).toContainText('Stopped')
  await expect(chat.thread.getByText(question, { exact: true })).toBeVisible()
  expect(pageErrors).toEqual([])
})
