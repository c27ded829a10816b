/**
 * The mailbox (port 54324 by default): a page to read caught emails and a JSON API for tests.
 *   GET    /api/messages?to=&limit=   newest first → { messages }
 *   GET    /api/messages/:id          one message (404 { error } when unknown)
 *   DELETE /api/messages?to=          deletes all, or one recipient's → 204
 *   POST   /emails                    sends an email, Resend's API (mailbox-send.ts)
 */
import { Hono } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from './clock.ts'
import { mountMailboxSend } from './mailbox-send.ts'
import type { MailboxStore } from './mailbox-store.ts'
import { renderMessage, renderMessageList, renderNotFound } from './mailbox-page.ts'

export function createMailboxApp(
  mailbox: MailboxStore,
  /** With it, `POST /emails` takes emails from the app (the BFF's invites). */
  send?: { sql: Sql; apiKey: string; clock: Clock },
): Hono {
  const app = new Hono()
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        imgSrc: ['data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    }),
  )

  // Postgres text cannot hold U+0000: such an address matches nothing, so drop the character.
  const recipient = (value: string | undefined) => {
    const cleaned = value?.replaceAll('\u0000', '').trim()
    return cleaned === undefined || cleaned === '' ? undefined : cleaned
  }

  app.get('/api/messages', async (c) => {
    const limit = Number.parseInt(c.req.query('limit') ?? '', 10)
    const to = recipient(c.req.query('to'))
    const messages = await mailbox.list({
      ...(to === undefined ? {} : { to }),
      ...(Number.isNaN(limit) ? {} : { limit }),
    })
    return c.json({ messages })
  })

  app.get('/api/messages/:id', async (c) => {
    const message = await mailbox.get(c.req.param('id'))
    return message === null ? c.json({ error: 'No email has this id.' }, 404) : c.json(message)
  })

  app.delete('/api/messages', async (c) => {
    const to = recipient(c.req.query('to'))
    await mailbox.clear(to === undefined ? {} : { to })
    return c.body(null, 204)
  })

  app.get('/', async (c) => {
    const to = recipient(c.req.query('to'))
    return c.html(renderMessageList(await mailbox.list(to === undefined ? {} : { to }), to))
  })

  app.get('/messages/:id', async (c) => {
    const message = await mailbox.get(c.req.param('id'))
    return message === null ? c.html(renderNotFound(), 404) : c.html(renderMessage(message))
  })

  app.post('/messages/delete', async (c) => {
    await mailbox.clear()
    return c.redirect('/', 303)
  })

  if (send !== undefined) mountMailboxSend(app, { mailbox, ...send })

  app.notFound((c) =>
    c.json({ error: `The mailbox has nothing at ${c.req.method} ${c.req.path}.` }, 404),
  )
  return app
}
