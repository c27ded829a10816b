import type { Locator } from '@playwright/test'
import { armFault, assistantPage, marker } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

/** How far the scrolling thread is from its end, in pixels. */
const distanceFromEnd = (scroller: Locator) =>
  scroller.evaluate((el) => Math.round(el.scrollHeight - el.scrollTop - el.clientHeight))

test('the thread follows a streaming answer, stays put when the reader scrolls up, and Jump to latest returns', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  await page.goto('/assistant')
  const word = marker()
  await armFault({ type: 'slow', tokensPerSecond: 25, match: word })
  // An echoed answer of many short lines: taller than the thread, arriving over several seconds.
  const lines = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of the answer.`)
  await chat.ask(`/echo ${word}\n\n${lines.join('\n\n')}`)
  await expect(chat.lastAnswer()).toContainText('Line 12 of')

  // Following: however far the answer has come, the end of the thread is in view.
  await expect.poll(() => distanceFromEnd(chat.thread)).toBeLessThan(48)
  await expect(chat.lastAnswer()).toContainText('Line 20 of')
  expect(await distanceFromEnd(chat.thread)).toBeLessThan(48)

  // The reader scrolls up to read: the thread stays where they put it as text keeps coming.
  await chat.thread.hover()
  await page.mouse.wheel(0, -600)
  const jump = page.getByRole('button', { name: 'Jump to latest' })
  await expect(jump).toBeVisible()
  const readingAt = await chat.thread.evaluate((el) => el.scrollTop)
  await expect(chat.lastAnswer()).toContainText('Line 40 of')
  expect(await chat.thread.evaluate((el) => el.scrollTop)).toBe(readingAt)

  await jump.click()
  await expect.poll(() => distanceFromEnd(chat.thread)).toBeLessThan(48)
  await expect(jump).toBeHidden()
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('Line 60 of the answer.')
  expect(await distanceFromEnd(chat.thread)).toBeLessThan(48)
  expect(pageErrors).toEqual([])
})
