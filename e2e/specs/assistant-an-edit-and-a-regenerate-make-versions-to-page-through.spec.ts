import { expectAccessible } from '../support/a11y.ts'
import { assistantPage, marker } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a user edits a question and regenerates an answer, pages back through the versions and copies an answer', async ({
  page,
  context,
  pageErrors,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const chat = assistantPage(page)
  const word = marker()
  const questions = chat.thread.getByRole('article', { name: 'You wrote' })
  await page.goto('/assistant')
  await chat.ask(`/echo first ${word}`)
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText(`first ${word}`)

  // Edit the question: an inline editor; Escape cancels and gives focus back to Edit.
  const edit = chat.thread.getByRole('button', { name: 'Edit' })
  await edit.click()
  const editor = chat.thread.getByRole('textbox', { name: 'Edit your message' })
  await expect(editor).toBeFocused()
  await editor.press('Escape')
  await expect(editor).toBeHidden()
  await expect(edit).toBeFocused()
  await edit.press('Enter')
  await expect(editor).toHaveValue(`/echo first ${word}`)
  await page.screenshot({ path: 'test-results/editor-open.png' })
  await expectAccessible(page, 'the editor open')
  await editor.fill(`/echo second ${word}`)
  await chat.thread.getByRole('button', { name: 'Save' }).click()
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText(`second ${word}`)
  await expect(questions).toHaveCount(1)
  await expect(questions).toHaveText(`/echo second ${word}`)

  // The question's pager: 2 / 2; Previous shows the first question with its own answer.
  const question = chat.thread.locator('.message--user')
  await expect(question.getByRole('group', { name: 'Versions' })).toContainText('Version 2 of 2')
  await question.getByRole('button', { name: 'Previous version' }).click()
  await expect(questions).toHaveText(`/echo first ${word}`)
  await expect(chat.lastAnswer()).toContainText(`first ${word}`)
  await expect(page.getByRole('status').filter({ hasText: 'Version 1 of 2' })).toBeAttached()
  await expect(question.getByRole('button', { name: 'Next version' })).toBeFocused()
  await question.getByRole('button', { name: 'Next version' }).click()
  await expect(questions).toHaveText(`/echo second ${word}`)
  await expect(chat.lastAnswer()).toContainText(`second ${word}`)

  // Regenerate the answer: a second version of it, paged on the answer.
  await chat.thread.getByRole('button', { name: 'Regenerate' }).click()
  await chat.settled()
  const answer = chat.thread.locator('.message--assistant')
  await expect(answer.getByRole('group', { name: 'Versions' })).toContainText('Version 2 of 2')
  await expect(chat.lastAnswer()).toContainText(`second ${word}`)
  await answer.getByRole('button', { name: 'Previous version' }).click()
  await expect(answer.getByRole('group', { name: 'Versions' })).toContainText('Version 1 of 2')
  await expect(questions).toHaveText(`/echo second ${word}`)

  // Copy the answer: the clipboard holds its text and the button says so.
  const copy = answer.getByRole('button', { name: 'Copy', exact: true })
  await copy.click()
  await expect(answer.getByRole('button', { name: 'Copied' })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`second ${word}`)
  await expect(answer.getByRole('button', { name: 'Copy', exact: true })).toBeVisible()

  // A reload shows the versions as they were left.
  await page.reload()
  await expect(answer.getByRole('group', { name: 'Versions' })).toContainText('Version 1 of 2')
  await expect(question.getByRole('group', { name: 'Versions' })).toContainText('Version 2 of 2')

  // On a phone the actions fit.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(chat.thread.getByRole('button', { name: 'Regenerate' })).toBeInViewport()
  await page.screenshot({ path: 'test-results/edit-regenerate-390.png' })
  await expectAccessible(page, 'versions on a phone')
  expect(pageErrors).toEqual([])
})
