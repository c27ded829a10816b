import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { emulatorSchema } from './emulator-schema.ts'

/** The kinds of email the auth stand-in sends; also the `type` of their links. */
export type EmailType = 'signup' | 'recovery' | 'magiclink' | 'email_change'

/** What the mailbox holds: the auth stand-in's emails, and `app` ones sent through `POST /emails`. */
export type MailboxMessageType = EmailType | 'app'

/** One caught email, as the mailbox's JSON API returns it. */
export interface MailMessage {
  id: string
  to: string
  from: string
  subject: string
  text: string
  html: string
  /** Every link in the email, the app's confirmation link first. */
  links: string[]
  type: MailboxMessageType
  token_hash: string | null
  /** The six-digit code the email shows, for `verifyOtp({ email, token, type })`. */
  otp: string | null
  redirect_to: string | null
  user_id: string | null
  created_at: string
}

export type NewMailMessage = Omit<MailMessage, 'id' | 'created_at'> & { created_at: Date }

interface MessageRow {
  id: string
  to_address: string
  from_address: string
  subject: string
  text_body: string
  html_body: string
  links: string[]
  email_type: MailboxMessageType
  token_hash: string | null
  otp: string | null
  redirect_to: string | null
  user_id: string | null
  created_at: Date
}

const columns =
  'id, to_address, from_address, subject, text_body, html_body, links, email_type, token_hash, otp, redirect_to, user_id, created_at'

function toMessage(row: MessageRow): MailMessage {
  return {
    id: row.id,
    to: row.to_address,
    from: row.from_address,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    links: row.links,
    type: row.email_type,
    token_hash: row.token_hash,
    otp: row.otp,
    redirect_to: row.redirect_to,
    user_id: row.user_id,
    created_at: row.created_at.toISOString(),
  }
}

/** The mailbox lives in the database, so it survives restarts and sends commit with their cause. */
export interface MailboxStore {
  /** Stores a sent email inside the caller's transaction. */
  deliver(tx: SqlQueryable, message: NewMailMessage): Promise<MailMessage>
  /** Newest first; `to` filters by recipient (case-insensitive). */
  list(options?: { to?: string; limit?: number }): Promise<MailMessage[]>
  get(id: string): Promise<MailMessage | null>
  /** Deletes every message, or a recipient's; returns how many. */
  clear(options?: { to?: string }): Promise<number>
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function createMailboxStore(sql: Sql): MailboxStore {
  return {
    async deliver(tx, message) {
      const { rows } = await tx.query<MessageRow>(
        `insert into ${emulatorSchema}.mailbox_messages (${columns})
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13)
         returning ${columns}`,
        [
          crypto.randomUUID(),
          message.to.toLowerCase(),
          message.from,
          message.subject,
          message.text,
          message.html,
          JSON.stringify(message.links),
          message.type,
          message.token_hash,
          message.otp,
          message.redirect_to,
          message.user_id,
          message.created_at,
        ],
      )
      const row = rows[0]
      if (row === undefined) throw new Error('The email was not stored.')
      return toMessage(row)
    },
    async list(options = {}) {
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 500)
      const { rows } =
        options.to === undefined
          ? await sql.query<MessageRow>(
              `select ${columns} from ${emulatorSchema}.mailbox_messages order by created_at desc, seq desc limit $1`,
              [limit],
            )
          : await sql.query<MessageRow>(
              `select ${columns} from ${emulatorSchema}.mailbox_messages where to_address = $1
               order by created_at desc, seq desc limit $2`,
              [options.to.toLowerCase(), limit],
            )
      return rows.map(toMessage)
    },
    async get(id) {
      if (!uuidPattern.test(id)) return null
      const { rows } = await sql.query<MessageRow>(
        `select ${columns} from ${emulatorSchema}.mailbox_messages where id = $1`,
        [id],
      )
      const row = rows[0]
      return row === undefined ? null : toMessage(row)
    },
    async clear(options = {}) {
      const result =
        options.to === undefined
          ? await sql.query(`delete from ${emulatorSchema}.mailbox_messages`)
          : await sql.query(
              `delete from ${emulatorSchema}.mailbox_messages where to_address = $1`,
              [options.to.toLowerCase()],
            )
      return result.rowCount
    },
  }
}
