import { z } from 'zod/mini'
import { ATTACHMENT_IDS_MAX } from './attachment-values.ts'

export * from './attachment-values.ts'

/** What an attachment is, decided by its first bytes (never by its name or the browser's type). */
export const attachmentKinds = ['image', 'pdf', 'text'] as const
export type AttachmentKind = (typeof attachmentKinds)[number]

/**
 * One uploaded file, as `POST /api/assistant/attachments` answers it (201 `{ attachment }`) and as
 * messages list it. Its bytes are read back only through `GET /api/assistant/attachments/:id`.
 */
export const attachmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(attachmentKinds),
  /** The type its bytes were found to be: image/png, image/jpeg, image/webp, image/gif, application/pdf or text/plain. */
  contentType: z.string(),
  sizeBytes: z.int().check(z.positive()),
  /** Pixel size of an image; null for other kinds. */
  width: z.nullable(z.int().check(z.positive())),
  height: z.nullable(z.int().check(z.positive())),
  createdAt: z.string(),
})
export type Attachment = z.infer<typeof attachmentSchema>

/** `POST /api/assistant/attachments` (201). */
export const attachmentResponseSchema = z.object({ attachment: attachmentSchema })
export type AttachmentResponse = z.infer<typeof attachmentResponseSchema>

/** `attachmentIds` of a send: uploaded by the sender and not yet sent with another message. */
export const attachmentIdsSchema = z
  .array(z.uuid({ error: 'An attachment id is a uuid from the upload.' }), {
    error: 'Attachment ids are a list.',
  })
  .check(
    z.maxLength(
      ATTACHMENT_IDS_MAX,
      `A message can name at most ${ATTACHMENT_IDS_MAX} attachments.`,
    ),
    z.refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, {
      error: 'The same attachment is named twice.',
    }),
  )
