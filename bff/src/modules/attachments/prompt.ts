import { ApiError } from '@tessera/contracts'
import type { PromptMessage } from '../assistant/estimate.ts'
import type { SendAttachments } from './attachments.ts'

/** The heading of an attached file's text part: the model is told which file it reads. */
export const attachedFileHeading = (name: string) => `Attached file "${name}":`

/**
 * The question of a send with its attachments: the text the person wrote, then each file's text
 * and each image as parts of their own. The files' text counts against the history budget
 * (`historyChars`): past it the send is refused, not cut, so the model never answers about a
 * file it saw only part of.
 */
export function questionWith(
  content: string,
  attached: SendAttachments | null,
  historyChars: number,
): PromptMessage {
  if (attached === null) return { role: 'user', content }
  const chars = attached.texts.reduce((sum, file) => sum + file.text.length, content.length)
  if (chars > historyChars)
    throw new ApiError('attachment_text_too_long', { details: { chars, limitChars: historyChars } })
  return {
    role: 'user',
    content,
    parts: [
      ...attached.texts.map((file) => ({
        type: 'text' as const,
        text: `${attachedFileHeading(file.name)}\n\n${file.text}`,
      })),
      ...attached.images.map((image) => ({ type: 'image' as const, dataUrl: image.dataUrl })),
    ],
  }
}
