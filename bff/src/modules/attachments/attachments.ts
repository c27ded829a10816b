/**
 * Attachments (docs/decisions/033): an upload is capped while it is read, typed by its bytes,
 * its text read (PDF, text files), counted against the plan's monthly bytes, stored in the
 * private bucket, then recorded; a send takes the sender's unsent ones and ties them to its
 * question. Rows go with their conversation; a queue filled in the same transaction has their
 * objects removed from Storage (`sweepRemovals`).
 */
import { ATTACHMENT_NAME_MAX_LENGTH, ApiError, plans } from '@tessera/contracts'
import type { Attachment, AttachmentLimits, ChatMessage } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { EntitlementsForUser } from '../assistant/entitlements.ts'
import { usagePeriodOf } from '../assistant/period.ts'
import type { Sender } from '../assistant/send.ts'
import { currentTeam } from '../assistant/workspace-scope.ts'
import { createAttachmentStorage } from './attachment-storage.ts'
import type { AttachmentStorage } from './attachment-storage.ts'
import { attachmentOf, createAttachmentStore } from './attachment-store.ts'
import type { AttachmentRow } from './attachment-store.ts'
import { fileTypeOf } from './file-types.ts'
import { extractPdfText } from './pdf-text.ts'
import { readCapped } from '../../platform/read-capped.ts'

export interface AttachmentsDeps {
  sql: Sql
  /** Where the bytes go; by default the private bucket of the Supabase project below. */
  storage?: AttachmentStorage | undefined
  supabase: { url: string; serviceRoleKey: string }
  entitlementsForUser: EntitlementsForUser
  clock: Clock
  logger: Logger
}

/** How long an uploaded file waits to be sent before the sweep deletes it (a day). */
export const UNSENT_KEPT_MS = 24 * 60 * 60 * 1000

/** What a send carries of its attachments: for the model, and for the stored question. */
export interface SendAttachments {
  ids: string[]
  summaries: Attachment[]
  /** Images as data URLs: the model never needs a Storage URL. */
  images: { name: string; dataUrl: string }[]
  /** The text of PDFs and text files. */
  texts: { name: string; text: string }[]
}

/** Control characters (C0, DEL, C1) and path separators have no place in a file's name. */
// eslint-disable-next-line no-control-regex
const unfitForNames = /[\u0000-\u001f\u007f-\u009f/\\]/

/** A name the person gave their file: percent-encoded UTF-8 in the header. */
function nameOf(header: string | undefined): string {
  const invalid = () => new ApiError('attachment_name_invalid')
  if (header === undefined) throw invalid()
  let name: string
  try {
    name = decodeURIComponent(header).normalize('NFC').trim()
  } catch (error) {
    if (error instanceof URIError) throw invalid()
    throw error
  }
  if (name === '' || name.length > ATTACHMENT_NAME_MAX_LENGTH || unfitForNames.test(name))
    throw invalid()
  return name
}

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

export function createAttachments(deps: AttachmentsDeps) {
  const { sql, clock, logger } = deps
  const storage = deps.storage ?? createAttachmentStorage({ ...deps.supabase, logger })
  const store = createAttachmentStore(sql)

  /** The plan limits of the session's current workspace (a team's plan in a team). */
  async function limitsOf(sender: Sender): Promise<AttachmentLimits> {
    const team = await currentTeam(sql, sender.sessionId, sender.userId)
    const entitlements = await deps.entitlementsForUser(sender.claims, team?.id)
    return plans[entitlements.plan].limits.attachments
  }

  return {
    store,
    limitsOf,

    async upload(
      sender: Sender,
      input: {
        name: string | undefined
        declaredBytes: number | null
        body: ReadableStream<Uint8Array> | null
      },
    ): Promise<Attachment> {
      const name = nameOf(input.name)
      const limits = await limitsOf(sender)
      if (input.declaredBytes !== null && input.declaredBytes > limits.fileBytes)
        throw new ApiError('attachment_too_large', { details: { limitBytes: limits.fileBytes } })
      const bytes = await readCapped(input.body, limits.fileBytes)
      if (bytes === null)
        throw new ApiError('attachment_too_large', { details: { limitBytes: limits.fileBytes } })
      if (bytes.byteLength === 0) throw new ApiError('attachment_empty')
      const type = fileTypeOf(name, bytes)
      const text = type.kind === 'pdf' ? await extractPdfText(bytes) : type.text
      const period = usagePeriodOf(clock.now())
      const counted = await store.countBytes({
        userId: sender.userId,
        periodStart: period.start,
        bytes: bytes.byteLength,
        limit: limits.monthlyBytes,
      })
      if (!counted.ok)
        throw new ApiError('attachment_allowance_reached', {
          details: { usedBytes: counted.used, limitBytes: limits.monthlyBytes },
        })
      const id = crypto.randomUUID()
      const objectPath = `${sender.userId}/${id}`
      const uncount = () =>
        store
          .uncountBytes({
            userId: sender.userId,
            periodStart: period.start,
            bytes: bytes.byteLength,
          })
          .catch((error: unknown) =>
            logger.error('could not give back attachment bytes', { error }),
          )
      try {
        await storage.upload(objectPath, bytes, type.contentType)
      } catch (error) {
        await uncount()
        throw error
      }
      try {
        return await store.insert(sender.claims, {
          id,
          name,
          kind: type.kind,
          contentType: type.contentType,
          sizeBytes: bytes.byteLength,
          width: type.width,
          height: type.height,
          text,
          objectPath,
        })
      } catch (error) {
        // Not recorded: the object would be an orphan, and the bytes were never usable.
        await storage.remove([objectPath]).catch((removal: unknown) =>
          logger.error('could not remove an unrecorded attachment', {
            error: removal,
            objectPath,
          }),
        )
        await uncount()
        throw error
      }
    },

    /** One of the sender's attachments with its bytes; `not_found` for anyone else's. */
    async read(sender: Sender, id: string): Promise<{ row: AttachmentRow; bytes: Uint8Array }> {
      const row = await store.find(sender.claims, id)
      if (row === null) throw new ApiError('not_found')
      return { row, bytes: await storage.download(row.object_path) }
    },

    /**
     * The sender's unsent attachments named by a send, read for the model: `too_many_attachments`
     * past the plan's count, `attachment_unavailable` for an id that is not theirs or was sent.
     */
    async forSend(sender: Sender, ids: readonly string[]): Promise<SendAttachments> {
      const limits = await limitsOf(sender)
      if (ids.length > limits.perMessage)
        throw new ApiError('too_many_attachments', { details: { limit: limits.perMessage } })
      const rows = await store.unsent(sender.claims, ids)
      if (rows.length !== ids.length) throw new ApiError('attachment_unavailable')
      const ordered = ids.map((id) => rows.find((row) => row.id === id) as (typeof rows)[number])
      const images = await Promise.all(
        ordered
          .filter((row) => row.kind === 'image')
          .map(async (row) => ({
            name: row.name,
            dataUrl: `data:${row.content_type};base64,${base64(await storage.download(row.object_path))}`,
          })),
      )
      return {
        ids: ordered.map((row) => row.id),
        summaries: ordered.map((row) => attachmentOf(row)),
        images,
        texts: ordered
          .filter((row) => row.text_content !== null)
          .map((row) => ({ name: row.name, text: row.text_content ?? '' })),
      }
    },

    /** Ties a send's attachments to its stored question. */
    async tie(sender: Sender, ids: readonly string[], messageId: string): Promise<void> {
      const tied = await store.send(sender.claims, ids, messageId)
      // Another tab sent one of them in between: the model had it, but the other message keeps it.
      if (tied !== ids.length)
        logger.warn('an attachment was sent twice at once', {
          messageId,
          expected: ids.length,
          tied,
        })
    },

    /** Messages with their attachments (a message without any is left as it is). */
    async withAttachments(sender: Sender, messages: ChatMessage[]): Promise<ChatMessage[]> {
      const byMessage = await store.ofMessages(
        sender.claims,
        messages.filter((message) => message.role === 'user').map((message) => message.id),
      )
      return messages.map((message) => {
        const attachments = byMessage.get(message.id)
        return attachments === undefined ? message : { ...message, attachments }
      })
    },

    /**
     * Deletes drafts never sent within a day, then the Storage objects of removed attachments,
     * then their queue entries; a failure leaves them queued for the next sweep. The number of
     * objects removed.
     */
    async sweepRemovals(batch = 100): Promise<number> {
      await store.dropUnsent(UNSENT_KEPT_MS)
      let removed = 0
      for (;;) {
        const paths = await store.queuedRemovals(batch)
        if (paths.length === 0) return removed
        await storage.remove(paths)
        await store.dequeueRemovals(paths)
        removed += paths.length
        if (paths.length < batch) return removed
      }
    },
  }
}

export type Attachments = ReturnType<typeof createAttachments>
