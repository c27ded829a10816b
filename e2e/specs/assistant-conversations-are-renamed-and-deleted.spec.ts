import { assistantPage } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('a user renames a conversation, deletes another after confirming, and the list follows', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  const list = page.getByRole('navigation', { name: 'Your conversations' })
  const heading = page.getByRole('heading', { level: 1 })
  await page.goto('/assistant')
  await chat.ask('Ideas for a garden')
  await chat.settled()
  await page.getByRole('button', { name: 'New conversation' }).click()
  await expect(heading).toHaveText('New conversation')
  await chat.ask('Recipes with lentils')
  await chat.settled()
  // Newest first.
  await expect(list.getByRole('link')).toHaveText([/Recipes with lentils/, /Ideas for a garden/])

  await page.getByRole('button', { name: 'Rename' }).click()
  const title = page.getByRole('textbox', { name: 'Conversation title' })
  await expect(title).toBeFocused()
  await title.fill('Lentil dinners')
  await title.press('Enter')
  await expect(heading).toHaveText('Lentil dinners')
  await expect(list.getByRole('link', { name: /Lentil dinners/ })).toBeVisible()

  await list.getByRole('link', { name: /Ideas for a garden/ }).click()
  await expect(heading).toHaveText('Ideas for a garden')
  await expect(chat.thread.getByText('Ideas for a garden', { exact: true })).toBeVisible()
  await page.getByRole('button', { name: 'Delete' }).click()
  const confirm = page.getByRole('group', { name: 'Delete this conversation?' })
  await expect(confirm.getByRole('button', { name: 'Yes, delete' })).toBeFocused()
  await confirm.getByRole('button', { name: 'Yes, delete' }).click()
  await expect(heading).toHaveText('New conversation')
  await expect(page).toHaveURL(/\/assistant$/)
  await expect(list.getByRole('link')).toHaveText([/Lentil dinners/])
  // The confirmation toast stays clear of the composer (1280×800, a laptop's screen).
  await page.setViewportSize({ width: 1280, height: 800 })
  const toast = page
    .getByRole('region', { name: 'Notifications' })
    .getByText('The conversation was deleted.')
  await expect(toast).toBeVisible()
  const [toastBox, composerBox] = await Promise.all([
    toast.locator('xpath=ancestor::li[1]').boundingBox(),
    page.getByRole('form', { name: 'Write a message' }).boundingBox(),
  ])
  expect(toastBox).not.toBeNull()
  expect(composerBox).not.toBeNull()
  if (toastBox !== null && composerBox !== null) {
    const apart =
      toastBox.y + toastBox.height <= composerBox.y ||
      composerBox.y + composerBox.height <= toastBox.y ||
      toastBox.x + toastBox.width <= composerBox.x ||
      composerBox.x + composerBox.width <= toastBox.x
    expect(apart).toBe(true)
  }

  // The server agrees after a reload.
  await page.reload()
  await expect(list.getByRole('link')).toHaveText([/Lentil dinners/])
  expect(pageErrors).toEqual([])
})
