import { expectAccessible } from '../support/a11y.ts'
import { assistantPage, marker } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a user presses "/", searches their conversations and opens one at the matching message', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  const word = marker()
  const heading = page.getByRole('heading', { level: 1 })
  await page.goto('/assistant')
  await chat.ask(`Where does the ${word} quokka live?`)
  await chat.settled()
  // Later messages push the match out of sight: opening at it has to scroll back up.
  for (let n = 0; n < 3; n += 1) {
    await chat.ask(`/echo ${'A long paragraph about something else entirely. '.repeat(30)}`)
    await chat.settled()
  }
  await page.getByRole('button', { name: 'New conversation' }).click()
  await expect(heading).toHaveText('New conversation')
  await chat.ask('Something unrelated about teapots')
  await chat.settled()

  // "/" outside a field goes to the search box; in the composer it is a character.
  await heading.focus()
  await page.keyboard.press('/')
  const search = page.getByRole('searchbox', { name: 'Search conversations' })
  await expect(search).toBeFocused()
  await expect(search).toHaveAttribute('aria-keyshortcuts', '/')
  await search.fill(`${word} quokka`)
  const results = page.getByRole('list', { name: `Search results for ${word} quokka` })
  const hit = results.getByRole('link')
  await expect(hit).toHaveCount(1)
  // The title (named by the question) and the snippet mark the words.
  await expect(hit.locator('mark').filter({ hasText: word }).first()).toBeVisible()
  await expect(
    hit
      .locator('mark')
      .filter({ hasText: /quokka/i })
      .first(),
  ).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: '1 conversation found' })).toBeAttached()
  await expectAccessible(page, 'search results')

  await hit.click()
  await expect(page).toHaveURL(/\/assistant\/conversations\/[0-9a-f-]{36}\?message=[0-9a-f-]{36}$/)
  const target = chat.thread.locator('.message--target')
  await expect(target).toHaveCount(1)
  // The best match: the question, or the answer that repeats its words.
  await expect(target).toContainText(word)
  await expect(target).toBeFocused()
  await expect(target).toBeInViewport()

  // Nothing found says so; Escape clears the box.
  await search.fill('zzzqqqxxx')
  await expect(
    page.getByText('Nothing found for “zzzqqqxxx”.', { exact: false }).first(),
  ).toBeVisible()
  await search.press('Escape')
  await expect(search).toHaveValue('')

  // On a phone the search is in the conversations panel, and choosing a hit closes it.
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/assistant')
  await page.getByRole('button', { name: 'Conversations' }).click()
  await search.fill('teapots')
  await results
    .or(page.getByRole('list', { name: 'Search results for teapots' }))
    .getByRole('link')
    .first()
    .click()
  await expect(heading).toHaveText(/teapots/i)
  await expect(search).toBeHidden()
  expect(pageErrors).toEqual([])
})
