/**
 * Attachments' rows: written and read as the user under RLS (withUser), except the monthly byte
 * counter and the removal queue, which only the BFF's own connection touches
 * (supabase/migrations/20261126145000_assistant_attachments.sql).
 */
import type { Attachment, AttachmentKind } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'

/** A PostgreSQL array literal (`{"a","b"}`), for `$n::uuid[]` and `$n::text[]` parameters. */
function pgArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`).join(',')}}`
}

export interface AttachmentRow {
  id: string
  name: string
  kind: AttachmentKind
  content_type: string
  size_bytes: number
  width: number | null
  height: number | null
  created_at: Date | string
  object_path: string
  message_id: string | null
}

const columns =
  'id, name, kind, content_type, size_bytes, width, height, created_at, object_path, message_id'

/** A row as the API shows it. */
export function attachmentOf(row: AttachmentRow): Attachment {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    width: row.width,
    height: row.height,
    createdAt: new Date(row.created_at).toISOString(),
  }
}

export interface NewAttachment {
  id: string
  name: string
  kind: AttachmentKind
  contentType: string
  sizeBytes: number
  width: number | null
  height: number | null
  text: string | null
  objectPath: string
}

export function createAttachmentStore(sql: Sql) {
  return {
    insert: (claims: UserClaims, row: NewAttachment): Promise<Attachment> =>
      withUser(sql, claims, async (tx) => {
        const { rows } = await tx.query<AttachmentRow>(
          `insert into public.assistant_attachments
             (id, user_id, name, kind, content_type, size_bytes, width, height, text_content, object_path)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           returning ${columns}`,
          [
            row.id,
            claims.sub,
            row.name,
            row.kind,
            row.contentType,
            row.sizeBytes,
            row.width,
            row.height,
            row.text,
            row.objectPath,
          ],
        )
        return attachmentOf(rows[0] as AttachmentRow)
      }),

    /** One of the user's attachments (sent or not); null for anyone else's or none. */
    find: (claims: UserClaims, id: string): Promise<AttachmentRow | null> =>
      withUser(
        sql,
        claims,
        async (tx) =>
          (
            await tx.query<AttachmentRow>(
              `select ${columns} from public.assistant_attachments where id = $1`,
              [id],
            )
          ).rows[0] ?? null,
        { readOnly: true },
      ),

    /** The user's unsent attachments among `ids`, with the text the model reads. */
    unsent: (claims: UserClaims, ids: readonly string[]) =>
      withUser(
        sql,
        claims,
        async (tx) =>
          (
            await tx.query<AttachmentRow & { text_content: string | null }>(
              `select ${columns}, text_content from public.assistant_attachments
               where id = any($1::uuid[]) and message_id is null and user_id = $2`,
              [pgArray(ids), claims.sub],
            )
          ).rows,
        { readOnly: true },
      ),

    /** Ties unsent attachments to the user's message; the number tied. */
    send: (claims: UserClaims, ids: readonly string[], messageId: string): Promise<number> =>
      withUser(sql, claims, async (tx) => {
        const { rowCount } = await tx.query(
          `update public.assistant_attachments set message_id = $2
           where id = any($1::uuid[]) and message_id is null`,
          [pgArray(ids), messageId],
        )
        return rowCount
      }),

    /** The attachments of the user's messages, by message id, in upload order. */
    ofMessages: async (
      claims: UserClaims,
      messageIds: readonly string[],
    ): Promise<Map<string, Attachment[]>> => {
      const byMessage = new Map<string, Attachment[]>()
      if (messageIds.length === 0) return byMessage
      const rows = await withUser(
        sql,
        claims,
        async (tx) =>
          (
            await tx.query<AttachmentRow>(
              `select ${columns} from public.assistant_attachments
               where message_id = any($1::uuid[]) order by created_at, id`,
              [pgArray(messageIds)],
            )
          ).rows,
        { readOnly: true },
      )
      for (const row of rows) {
        if (row.message_id === null) continue
        byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), attachmentOf(row)])
      }
      return byMessage
    },

    /**
     * Counts `bytes` against the month's allowance, in one statement so that concurrent uploads
     * cannot pass it together; false (nothing counted) when they would.
     */
    async countBytes(input: {
      userId: string
      periodStart: Date
      bytes: number
      limit: number
    }): Promise<{ ok: boolean; used: number }> {
      const { rows } = await sql.query<{ used_bytes: string | number }>(
        `insert into public.assistant_attachment_usage as usage (user_id, period_start, used_bytes)
         select $1, $2, $3 where $3::bigint <= $4::bigint
         on conflict (user_id, period_start) do update
           set used_bytes = usage.used_bytes + excluded.used_bytes
           where usage.used_bytes + excluded.used_bytes <= $4::bigint
         returning used_bytes`,
        [input.userId, input.periodStart, input.bytes, input.limit],
      )
      if (rows[0] !== undefined) return { ok: true, used: Number(rows[0].used_bytes) }
      const current = await sql.query<{ used_bytes: string | number }>(
        `select used_bytes from public.assistant_attachment_usage where user_id = $1 and period_start = $2`,
        [input.userId, input.periodStart],
      )
      return { ok: false, used: Number(current.rows[0]?.used_bytes ?? 0) }
    },

    /** Gives back bytes counted for an upload that was not stored. */
    async uncountBytes(input: { userId: string; periodStart: Date; bytes: number }) {
      await sql.query(
        `update public.assistant_attachment_usage
         set used_bytes = greatest(0, used_bytes - $3) where user_id = $1 and period_start = $2`,
        [input.userId, input.periodStart, input.bytes],
      )
    },

    /**
     * Deletes attachments uploaded longer than `olderThanMs` ago and never sent (a draft left
     * behind); their objects are queued for removal by the same trigger as any deleted row.
     */
    async dropUnsent(olderThanMs: number): Promise<number> {
      const { rowCount } = await sql.query(
        `delete from public.assistant_attachments
         where message_id is null and created_at < now() - make_interval(secs => $1)`,
        [olderThanMs / 1000],
      )
      return rowCount
    },

    /** Object paths whose rows are gone, oldest first. */
    async queuedRemovals(limit: number): Promise<string[]> {
      const { rows } = await sql.query<{ object_path: string }>(
        `select object_path from public.assistant_attachment_removals order by removed_at limit $1`,
        [limit],
      )
      return rows.map((row) => row.object_path)
    },

    async dequeueRemovals(paths: readonly string[]): Promise<void> {
      await sql.query(
        `delete from public.assistant_attachment_removals where object_path = any($1::text[])`,
        [pgArray(paths)],
      )
    },
  }
}

export type AttachmentStore = ReturnType<typeof createAttachmentStore>
