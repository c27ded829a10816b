import { expectAccessible } from '../support/a11y.ts'
import { assistantPage, conversationIdIn, marker } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

/** A 24 × 16 PNG (bff/src/testing/files.ts `makePng(24, 16)`). */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAACuElEQVR4nAXBIQ9GQBzA4X+XFJ2sXdDtqnibbhPV2/sBbKJ6U35J0GS6IunXpSs+wL3PIyIkQibkQilUQi00Qit0wiD8hFGYhUVYhV04hUt4BC+8widEQSQlSclS8pQypUqpU5qUNqVLGVJ+KWPKnLKkrCl7yplypTwpPuVN+VJiikhBUpAV5AVlQVVQFzQFbUFXMBT8CsaCuWApWAv2grPgKngKfMFb8BXEAhFFosgUuaJUVIpa0ShaRacYFD/FqJgVi2JV7IpTcSkehVe8ik8RFSKaRJNpck2pqTS1ptG0mk4zaH6aUTNrFs2q2TWn5tI8Gq95NZ8makQMiSEz5IbSUBlqQ2NoDZ1hMPwMo2E2LIbVsBtOw2V4DN7wGj5DNIj0JD1ZT95T9lQ9dU/T0/Z0PUPPr2fsmXuWnrVn7zl7rp6nx/e8PV9P7BGxJJbMkltKS2WpLY2ltXSWwfKzjJbZslhWy245LZflsXjLa/ks0SIykUxkE/lEOVFN1BPNRDvRTQwTv4lxYp5YJtaJfeKcuCaeCT/xTnwTcULEkTgyR+4oHZWjdjSO1tE5BsfPMTpmx+JYHbvjdFyOx+Edr+NzRIfIRrKRbeQb5Ua1UW80G+1GtzFs/DbGjXlj2Vg39o1z49p4NvzGu/FtxA2Rg+QgO8gPyoPqoD5oDtqD7mA4+B2MB/PBcrAe7AfnwXXwHPiD9+A7iAciN8lNdpPflDfVTX3T3LQ33c1w87sZb+ab5Wa92W/Om+vmufE37813E29EPIkn8+Se0lN5ak/jaT2dZ/D8PKNn9iye1bN7Ts/leTze83o+T/SIBJJAFsgDZaAK1IEm0Aa6wBD4BcbAHFgCa2APnIEr8AR84A18gRgQiSSRLJJHykgVqSNNpI10kSHyi4yRObJE1sgeOSNX5In4yBv5IjHyB8aybe+IHHEaAAAAAElFTkSuQmCC',
  'base64',
)

test('a user attaches an image and a text file, the answer speaks of both, and a disguised file is refused', async ({
  page,
  pageErrors,
}) => {
  const chat = assistantPage(page)
  const tray = page.getByRole('list', { name: 'Attached files' })
  await page.goto('/assistant')
  await expect(chat.composer).toBeVisible()

  // By the button: the file picker takes an image.
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: 'Attach files' }).click()
  await (await chooser).setFiles({ name: 'diagram.png', mimeType: 'image/png', buffer: png })
  await expect(tray.getByText('diagram.png')).toBeVisible()
  await expect(tray.getByText(/Attached$/)).toBeVisible()

  // By pasting: a text file from the clipboard.
  await chat.composer.focus()
  await page.evaluate(() => {
    const data = new DataTransfer()
    data.items.add(
      new File(['Ship the attachments on Thursday, with tests.'], 'notes.md', {
        type: 'text/markdown',
      }),
    )
    document.activeElement?.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    )
  })
  await expect(tray.getByRole('listitem')).toHaveCount(2)
  await expect(tray.getByText(/Attached$/)).toHaveCount(2)
  await expectAccessible(page, 'the composer with two attached files')

  const word = marker()
  await chat.ask(`What do these show? ${word}`)
  await chat.settled()
  const answer = chat.lastAnswer()
  await expect(answer).toContainText('Image 1 is a PNG image of 24×16 pixels.')
  await expect(answer).toContainText('The file “notes.md” has 7 words.')
  await expect(tray).toHaveCount(0)

  // The thread shows the image as a thumbnail and the text file as a chip, after a reload too.
  const id = conversationIdIn(page)
  await page.reload()
  const sent = page.getByRole('list', { name: 'Files sent' })
  await expect(sent.getByRole('link', { name: /diagram\.png/ })).toBeVisible()
  await expect(sent.getByRole('link', { name: /notes\.md/ })).toBeVisible()
  const thumbnail = sent.locator('img')
  await expect(thumbnail).toHaveCount(1)
  await expect
    .poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth))
    .toBe(24)
  await expectAccessible(page, 'a thread with an image and a text file')
  expect(conversationIdIn(page)).toBe(id)

  // By dropping: a file whose name says PNG but holds text is refused with what to do.
  await page.evaluate(() => {
    const data = new DataTransfer()
    data.items.add(new File(['not a picture at all'], 'holiday.png', { type: 'image/png' }))
    const form = document.querySelector('form[aria-label="Write a message"]')
    form?.dispatchEvent(
      new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }),
    )
    form?.dispatchEvent(
      new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }),
    )
  })
  const refusal = tray.getByRole('alert')
  await expect(refusal).toContainText(
    'holiday.png: This file’s name says one kind of file but its content is another.',
  )
  await expect(chat.send).toBeDisabled()

  // At 390 px the tray fits the screen, and removing the refused file lets the message go.
  await page.setViewportSize({ width: 390, height: 844 })
  const chip = await tray.getByRole('listitem').boundingBox()
  expect(chip).not.toBeNull()
  expect((chip?.x ?? 0) + (chip?.width ?? 0)).toBeLessThanOrEqual(390)
  await expectAccessible(page, 'a refused file at 390 px')
  await tray.getByRole('button', { name: 'Remove holiday.png' }).click()
  await expect(tray).toHaveCount(0)
  await chat.composer.fill('Thanks')
  await expect(chat.send).toBeEnabled()
  expect(pageErrors).toEqual([])
})
