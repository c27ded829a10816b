import {
  ApiError,
  conversationPageQuerySchema,
  createConversationBodySchema,
  editMessageBodySchema,
  emptyBodySchema,
  sendMessageBodySchema,
  updateConversationBodySchema,
  usageReportQuerySchema,
} from '@tessera/contracts'
import type { ConversationPage } from '@tessera/contracts'
import { stopAnswerBodySchema } from '@tessera/contracts/assistant-live'
import type { StopAnswerResponse } from '@tessera/contracts/assistant-live'
import { Hono } from 'hono'
import type { Context } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import { validationFailed } from '../../platform/errors.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import type { Logger } from '../../platform/logger.ts'
import type { Assistant, Sender } from './assistant.ts'
import type { ConversationCursor } from './store.ts'
import { usageReportCsv } from './usage-report.ts'
import { answerResponse } from './answer-response.ts'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const cursorSchema = z.object({
  at: z.iso.datetime({ precision: 6 }),
  id: z.string().check(z.regex(uuidPattern)),
})

/** The opaque `nextCursor`: where the page ended, as base64url JSON. */
export function encodeCursor(cursor: ConversationCursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify(cursor))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

export function decodeCursor(text: string): ConversationCursor | null {
  try {
    const base64 = text.replaceAll('-', '+').replaceAll('_', '/')
    const parsed = cursorSchema.safeParse(JSON.parse(atob(base64)))
    return parsed.success ? parsed.data : null
  } catch (error) {
    // Not base64 or not JSON: a cursor this BFF never gave out, which the caller reports.
    if (
      error instanceof SyntaxError ||
      (error instanceof DOMException && error.name === 'InvalidCharacterError')
    )
      return null
    throw error
  }
}

const pageQuery = validator('query', (value) => {
  const parsed = conversationPageQuerySchema.safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  const { cursor, limit } = parsed.data
  if (cursor === undefined) return { limit, cursor: null }
  const decoded = decodeCursor(cursor)
  if (decoded === null)
    throw validationFailed([
      { path: 'cursor', message: 'This page cursor is not one we gave out.' },
    ])
  return { limit, cursor: decoded }
})

/** The `:id` of a conversation; anything but a uuid names no conversation. */
function conversationId(c: Context<AppEnv>): string {
  const id = c.req.param('id') ?? ''
  if (!uuidPattern.test(id)) throw new ApiError('not_found')
  return id.toLowerCase()
}

/** The `:messageId` of a message; anything but a uuid names no message. */
function messageId(c: Context<AppEnv>): string {
  const id = c.req.param('messageId') ?? ''
  if (!uuidPattern.test(id)) throw new ApiError('not_found')
  return id.toLowerCase()
}

async function senderOf(c: Context<AppEnv>): Promise<Sender> {
  const session = await c.var.auth.require()
  return { userId: session.userId, claims: session.claims, sessionId: session.id }
}

/**
 * `/api/assistant`: the signed-in user's conversations, and sends whose answer streams back as
 * SSE (contracts/src/assistant.ts), within the plan's monthly tokens; edits and regenerates
 * (decision 031), checked, held, streamed and counted as a send is.
 */
export function assistantRoutes(deps: { assistant: Assistant; logger: Logger }) {
  const { assistant } = deps
  return new Hono<AppEnv>()
    .use(noStore())
    .get('/conversations', pageQuery, async (c) => {
      const sender = await senderOf(c)
      const page = await assistant.listConversations(sender, c.req.valid('query'))
      const body: ConversationPage = {
        conversations: page.conversations,
        nextCursor: page.next === null ? null : encodeCursor(page.next),
      }
      return c.json(body, 200)
    })
    .post('/conversations', requireJson(), jsonBody(createConversationBodySchema), async (c) => {
      const sender = await senderOf(c)
      const { title } = c.req.valid('json')
      const conversation = await assistant.createConversation(sender, title ?? null)
      return c.json({ conversation }, 201)
    })
    .patch(
      '/conversations/:id',
      requireJson(),
      jsonBody(updateConversationBodySchema),
      async (c) => {
        const sender = await senderOf(c)
        const id = conversationId(c)
        const { title, shared } = c.req.valid('json')
        let conversation =
          title === undefined ? null : await assistant.renameConversation(sender, id, title)
        if (title !== undefined && conversation === null) throw new ApiError('not_found')
        if (shared !== undefined)
          conversation = await assistant.shareConversation(sender, id, shared)
        return c.json({ conversation }, 200)
      },
    )
    .delete('/conversations/:id', async (c) => {
      const sender = await senderOf(c)
      if (!(await assistant.deleteConversation(sender, conversationId(c))))
        throw new ApiError('not_found')
      return c.body(null, 204)
    })
    .get('/conversations/:id/messages', async (c) => {
      const sender = await senderOf(c)
      const list = await assistant.listMessages(sender, conversationId(c))
      if (list === null) throw new ApiError('not_found')
      return c.json(list, 200)
    })
    .post(
      '/conversations/:id/messages',
      requireJson(),
      jsonBody(sendMessageBodySchema),
      async (c) => {
        const sender = await senderOf(c)
        // Every refusal (limits, moderation, a missing conversation) is a JSON error before the
        // stream opens; once it is open, failures are `error` events on it.
        const { content, model, attachmentIds } = c.req.valid('json')
        const prepared = await assistant.prepareSend(sender, {
          conversationId: conversationId(c),
          content,
          requestId: c.get('requestId'),
          ...(model === undefined ? {} : { model }),
          ...(attachmentIds === undefined ? {} : { attachmentIds }),
        })
        return answerResponse(c, deps, prepared)
      },
    )
    .post(
      '/conversations/:id/messages/:messageId/edit',
      requireJson(),
      jsonBody(editMessageBodySchema),
      async (c) => {
        const sender = await senderOf(c)
        const prepared = await assistant.prepareBranch(sender, {
          conversationId: conversationId(c),
          messageId: messageId(c),
          content: c.req.valid('json').content,
          requestId: c.get('requestId'),
        })
        return answerResponse(c, deps, prepared)
      },
    )
    .post(
      '/conversations/:id/messages/:messageId/regenerate',
      requireJson(),
      jsonBody(emptyBodySchema),
      async (c) => {
        const sender = await senderOf(c)
        const prepared = await assistant.prepareBranch(sender, {
          conversationId: conversationId(c),
          messageId: messageId(c),
          requestId: c.get('requestId'),
        })
        return answerResponse(c, deps, prepared)
      },
    )
    .put(
      '/conversations/:id/messages/:messageId/active',
      requireJson(),
      jsonBody(emptyBodySchema),
      async (c) => {
        const sender = await senderOf(c)
        const list = await assistant.selectVersion(sender, conversationId(c), messageId(c))
        return c.json(list, 200)
      },
    )
    .post('/conversations/:id/stop', requireJson(), jsonBody(stopAnswerBodySchema), async (c) => {
      const sender = await senderOf(c)
      // Accepted: the replica streaming the answer stops it as soon as it hears the request.
      const body: StopAnswerResponse = {
        streaming: await assistant.stopAnswers(sender, conversationId(c)),
      }
      return c.json(body, 202)
    })
    .get('/usage', async (c) => {
      const sender = await senderOf(c)
      // With `workspace`: the team's report for its owners and admins; without: the meter's.
      if (c.req.query('workspace') === undefined) return c.json(await assistant.usage(sender), 200)
      const parsed = usageReportQuerySchema.safeParse(c.req.query())
      if (!parsed.success) throw validationFailed(parsed.error)
      const report = await assistant.usageReport(sender, parsed.data)
      if (parsed.data.format === 'json') return c.json(report, 200)
      c.header('Content-Type', 'text/csv; charset=utf-8')
      c.header(
        'Content-Disposition',
        `attachment; filename="usage-${report.from}-${report.to}.csv"`,
      )
      return c.body(usageReportCsv(report), 200)
    })
}
