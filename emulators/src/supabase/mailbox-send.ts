/**
 * The mailbox's sending API, shaped like Resend's (`POST /emails`): the BFF sends its own emails
 * (workspace invites) here locally, so they land beside the auth stand-in's. It checks the bearer
 * key, validates the body as Resend does (422 `validation_error`), and honours `Idempotency-Key`
 * (the same key and body answer the first email's id without storing it again; the same key with
 * another body is 409 `invalid_idempotent_request`).
 */
import type { Context, Hono } from 'hono'
import type { Sql } from '@tessera/db/sql'
import { z } from 'zod/mini'
import type { Clock } from './clock.ts'
import type { MailboxStore } from './mailbox-store.ts'

/** The key the local stack's BFF sends with (its `MAIL_API_KEY` default); not a secret. */
export const localMailApiKey = 're_tessera_local_mailbox'

const recipients = z.union([z.email(), z.array(z.email()).check(z.minLength(1), z.maxLength(50))])

const sendBodySchema = z.object({
  from: z.string().check(z.minLength(3), z.maxLength(320)),
  to: recipients,
  subject: z.string().check(z.minLength(1), z.maxLength(998)),
  text: z.optional(z.string().check(z.maxLength(1_000_000))),
  html: z.optional(z.string().check(z.maxLength(1_000_000))),
})

const linkPattern = /https?:\/\/[^\s"'<>]+/g

/** Resend's error body: `{ statusCode, name, message }`. */
const failure = (c: Context, status: 401 | 403 | 409 | 422, name: string, message: string) =>
  c.json({ statusCode: status, name, message }, status)

export function mountMailboxSend(
  app: Hono,
  options: { mailbox: MailboxStore; sql: Sql; apiKey: string; clock: Clock },
): void {
  const sent = new Map<string, { body: string; id: string; at: number }>()
  app.post('/emails', async (c) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')
    if (match === null) {
      return failure(c, 401, 'missing_api_key', 'Missing API key in the authorization header.')
    }
    if (match[1] !== options.apiKey)
      return failure(c, 403, 'invalid_api_key', 'API key is invalid.')
    const raw = await c.req.text()
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      // Any parse failure is the sender's: the body is not JSON.
      return failure(c, 422, 'validation_error', 'The body is not valid JSON.')
    }
    const parsed = sendBodySchema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue?.path.join('.') ?? ''
      return failure(
        c,
        422,
        'validation_error',
        `Invalid \`${field}\` field: ${issue?.message ?? ''}`,
      )
    }
    const body = parsed.data
    if (body.text === undefined && body.html === undefined) {
      return failure(c, 422, 'validation_error', 'Either `text` or `html` must be provided.')
    }
    const now = options.clock.now().getTime()
    const key = c.req.header('idempotency-key')
    if (key !== undefined) {
      if (key.length === 0 || key.length > 256) {
        return failure(c, 422, 'validation_error', 'An idempotency key has 1 to 256 characters.')
      }
      const earlier = sent.get(key)
      if (earlier !== undefined && now - earlier.at < 24 * 3600 * 1000) {
        if (earlier.body !== raw) {
          return failure(
            c,
            409,
            'invalid_idempotent_request',
            'Same idempotency key used with a different request payload.',
          )
        }
        return c.json({ id: earlier.id }, 200)
      }
    }
    const to = Array.isArray(body.to) ? body.to : [body.to]
    const text = body.text ?? ''
    const html = body.html ?? ''
    const links = [
      ...new Set([...text.matchAll(linkPattern), ...html.matchAll(linkPattern)].map((m) => m[0])),
    ]
    const ids = await options.sql.transaction(async (tx) => {
      const stored: string[] = []
      for (const address of to) {
        const message = await options.mailbox.deliver(tx, {
          to: address,
          from: body.from,
          subject: body.subject,
          text,
          html,
          links,
          type: 'app',
          token_hash: null,
          otp: null,
          redirect_to: null,
          user_id: null,
          created_at: new Date(now),
        })
        stored.push(message.id)
      }
      return stored
    })
    const id = ids[0] ?? crypto.randomUUID()
    if (key !== undefined) sent.set(key, { body: raw, id, at: now })
    return c.json({ id }, 200)
  })
}
