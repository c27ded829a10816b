import { assistantPage } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

test('an answer carrying HTML, a javascript: link and a tracking image renders as inert text', async ({
  page,
  pageErrors,
}) => {
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  const images: string[] = []
  page.on('request', (request) => {
    if (request.url().includes('tracker.invalid')) images.push(request.url())
  })
  const chat = assistantPage(page)
  await page.goto('/assistant')

  // The stand-in echoes `/echo` messages verbatim: the answer is exactly this Markdown.
  await chat.ask(
    [
      '/echo ## Results',
      '',
      'An image: <img src=x onerror=alert(1)> and <script>alert(2)</script>',
      '',
      '[click me](javascript:alert(3)) and [the docs](https://example.com/docs)',
      '',
      '![chart](https://tracker.invalid/pixel.png)',
      '',
      '```js',
      'console.log("code stays code")',
      '```',
    ].join('\n'),
  )
  await chat.settled()
  const answer = chat.lastAnswer()
  await expect(answer.getByRole('heading', { name: 'Results' })).toBeVisible()
  await expect(answer).toContainText('<img src=x onerror=alert(1)>')
  await expect(answer).toContainText('<script>alert(2)</script>')
  await expect(answer.locator('img, script, iframe')).toHaveCount(0)

  // The javascript: link is plain text; clicking it does nothing.
  await expect(answer.getByRole('link', { name: 'click me' })).toHaveCount(0)
  const before = page.url()
  await answer.getByText('click me').click()
  expect(page.url()).toBe(before)
  // A web link works, in a new tab without access to this one.
  const docs = answer.getByRole('link', { name: /the docs/ })
  await expect(docs).toHaveAttribute('href', 'https://example.com/docs')
  await expect(docs).toHaveAttribute('rel', 'noopener noreferrer nofollow')

  // The image is never loaded; it is offered as a link instead.
  await expect(answer.getByRole('link', { name: /chart/ })).toHaveAttribute(
    'href',
    'https://tracker.invalid/pixel.png',
  )
  await expect(answer.getByText('console.log("code stays code")')).toBeVisible()
  await expect(answer.getByRole('button', { name: 'Copy' })).toBeVisible()

  // The same after a reload, from what the BFF stored.
  await page.reload()
  await expect(chat.lastAnswer()).toContainText('<img src=x onerror=alert(1)>')
  await expect(chat.lastAnswer().locator('img, script')).toHaveCount(0)
  expect(dialogs).toEqual([])
  expect(images).toEqual([])
  expect(pageErrors).toEqual([])
})
