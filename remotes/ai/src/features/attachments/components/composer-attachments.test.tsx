import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import type { Attachment } from '@tessera/contracts/attachments'
import { createRef, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Composer } from '../../composer/components/composer.tsx'
import { useAttachmentDraft } from '../use-attachment-draft.ts'
import { UploadError } from '../upload-attachment.ts'
import type * as UploadModule from '../upload-attachment.ts'

const uploads: {
  file: File
  progress: (sent: number) => void
  resolve: (attachment: Attachment) => void
  reject: (error: unknown) => void
}[] = []

vi.mock('../upload-attachment.ts', async (original) => ({
  ...(await original<typeof UploadModule>()),
  uploadAttachment: (_base: string, file: File, progress: (sent: number) => void) =>
    new Promise<Attachment>((resolve, reject) => uploads.push({ file, progress, resolve, reject })),
}))

afterEach(() => {
  cleanup()
  uploads.length = 0
})

const attachmentOf = (file: File): Attachment => ({
  id: crypto.randomUUID(),
  name: file.name,
  kind: 'text',
  contentType: 'text/plain',
  sizeBytes: file.size,
  width: null,
  height: null,
  createdAt: new Date().toISOString(),
})

function renderComposer() {
  const onSend = vi.fn()
  function Harness() {
    const [value, setValue] = useState('What is in it?')
    const draft = useAttachmentDraft('http://bff.test')
    return (
      <Composer
        value={value}
        onValue={setValue}
        onSend={(text) => onSend(text, draft.take())}
        onStop={() => {}}
        sending={false}
        textareaRef={createRef()}
        attachments={draft}
      />
    )
  }
  render(<Harness />)
  const box = screen.getByRole('textbox', { name: 'Message to the assistant' })
  const paste = (file: File) => fireEvent.paste(box, { clipboardData: { files: [file] } })
  return { onSend, box, paste }
}

describe('attachments in the composer', () => {
  it('attaches a pasted file, shows its progress, and sends only once it is attached', async () => {
    const { onSend, box, paste } = renderComposer()
    const file = new File(['four words right here'], 'notes.md', { type: 'text/markdown' })
    paste(file)
    const tray = screen.getByRole('list', { name: 'Attached files' })
    expect(tray.textContent).toContain('notes.md')
    expect(tray.textContent).toContain('Uploading, 0%')
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true)
    await act(async () => uploads[0]?.progress(0.5))
    expect(screen.getByRole('progressbar', { name: 'Uploading notes.md' })).toHaveProperty(
      'value',
      0.5,
    )
    const attachment = attachmentOf(file)
    await act(async () => uploads[0]?.resolve(attachment))
    expect(tray.textContent).toContain('Attached')
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('What is in it?', [attachment])
    expect(screen.queryByRole('list', { name: 'Attached files' })).toBeNull()
  })

  it('keeps a refused file on its chip with the sentence, and Send off until it is removed', async () => {
    const { paste } = renderComposer()
    paste(new File(['text'], 'holiday.png', { type: 'image/png' }))
    await act(async () =>
      uploads[0]?.reject(
        new UploadError('attachment_type_mismatch', 'This file’s name says one kind of file.'),
      ),
    )
    expect(screen.getByRole('alert').textContent).toBe(
      'holiday.png: This file’s name says one kind of file.',
    )
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true)
    expect(screen.getByText('Remove the files that were not attached to send.')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Remove holiday.png' }))
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', false)
  })

  it('leaves pasted text to the message', () => {
    const { box } = renderComposer()
    const event = fireEvent.paste(box, { clipboardData: { files: [], getData: () => 'hello' } })
    expect(event).toBe(true)
    expect(uploads).toHaveLength(0)
  })
})
