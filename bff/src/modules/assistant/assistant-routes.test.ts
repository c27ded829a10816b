import {
  USAGE_EVENT_TYPE,
  conversationPageSchema,
  errorCatalogue,
  errorBodySchema,
  isCatalogued,
  messageListSchema,
  usageSchema,
} from '@tessera/contracts'
import type { ChatMessage, Conversation, Usage } from '@tessera/contracts'
import { MODERATION_TEST_PHRASE } from '@tessera/emulators/openai/moderation'
import { countPromptTokens } from '@tessera/emulators/openai/tokenizer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withUser } from '../../platform/db/with-user.ts'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { SYSTEM_PROMPT } from './assistant.ts'
import { reservationFor } from './estimate.ts'
import { usagePeriodOf } from './period.ts'
import { createQuota } from './quota.ts'
import { abandonedAfterMs } from './quota.ts'
import { createAssistantStore } from './store.ts'
import { csrfHeaders, waitFor } from '../../testing/app.ts'
import {
  deltaText,
  eventOrder,
  newConversation,
  postMessage,
  readAnswer,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { decodeCursor, encodeCursor } from './assistant-routes.ts'

let t: AssistantTestApp
const MAX_ANSWER = 1024
const FREE_LIMIT = 50_000

beforeAll(async () => {
  t = await startAssistantTestApp({ env: { ASSISTANT_MAX_ANSWER_TOKENS: String(MAX_ANSWER) } })
}, databaseSetupTimeout)
afterAll(() => t.finish())

const claimsOf = (sub: string) => ({ sub, role: 'authenticated', aud: 'authenticated' })

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as T
}

async function listAll(browser: TestBrowser, limit: number): Promise<Conversation[][]> {
  const pages: Conversation[][] = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const page = conversationPageSchema.parse(
      await json(await browser.get(`/api/assistant/conversations?limit=${limit}${query}`)),
    )
    pages.push(page.conversations)
    cursor = page.nextCursor
  } while (cursor !== null)
  return pages
}

async function messagesOf(browser: TestBrowser, id: string) {
  return messageListSchema.parse(
    await json(await browser.get(`/api/assistant/conversations/${id}/messages`)),
  )
}

async function usageOf(browser: TestBrowser): Promise<Usage> {
  return usageSchema.parse(await json(await browser.get('/api/assistant/usage')))
}

/** Stores `used` tokens for the user's current month, as if earlier answers had counted them. */
async function setUsed(userId: string, used: number): Promise<void> {
  await t.db.query(
    `insert into assistant_usage (user_id, period_start, used_tokens, limit_tokens) values ($1, $2, $3, $4)
     on conflict (user_id, period_start) do update set used_tokens = excluded.used_tokens`,
    [userId, usagePeriodOf(t.clock.now()).start, used, FREE_LIMIT],
  )
}

/** What one send into a fresh conversation holds against the plan. */
const holdOf = (content: string) =>
  reservationFor(
    [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content },
    ],
    MAX_ANSWER,
  )

/** The stand-in's record of the chat completion whose last user message was `content`. */
const chatRequest = (content: string) =>
  t.openai.control
    .requests()
    .find((entry) => entry.path === '/v1/chat/completions' && entry.lastUserMessage === content)

async function expectError(response: Response, code: string, status: number) {
  const body = errorBodySchema.parse(await response.clone().json())
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code })
  expect(isCatalogued(body.error.code, response.status)).toBe(true)
  return body
}

describe('conversations', () => {
  it('creates, lists most recent first across pages, renames and deletes', async () => {
    const ada = await t.user('ada')
    const ids: string[] = []
    for (let index = 0; index < 5; index += 1)
      ids.push(await newConversation(ada, `Topic ${index}`))
    const untitled = await json<{ conversation: Conversation }>(
      await ada.send('POST', '/api/assistant/conversations', {}),
      201,
    )
    expect(untitled.conversation.title).toBe('New conversation')
    ids.push(untitled.conversation.id)

    const pages = await listAll(ada, 2)
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2])
    expect(pages.flat().map((conversation) => conversation.id)).toEqual([...ids].reverse())

    const renamed = await json<{ conversation: Conversation }>(
      await ada.send('PATCH', `/api/assistant/conversations/${ids[0]}`, { title: '  Tea  ' }),
    )
    expect(renamed.conversation).toMatchObject({ id: ids[0], title: 'Tea' })
    // A rename is activity: it moves the conversation to the top.
    expect((await listAll(ada, 10)).flat()[0]?.id).toBe(ids[0])

    const deleted = await ada.send('DELETE', `/api/assistant/conversations/${ids[1]}`)
    expect(deleted.status).toBe(204)
    await expectError(
      await ada.get(`/api/assistant/conversations/${ids[1]}/messages`),
      'not_found',
      404,
    )
    await expectError(
      await ada.send('DELETE', `/api/assistant/conversations/${ids[1]}`),
      'not_found',
      404,
    )
    expect((await listAll(ada, 100)).flat()).toHaveLength(5)
  })

  it('pages stably when conversations share a timestamp', async () => {
    const bea = await t.user('bea')
    const ids: string[] = []
    for (let index = 0; index < 4; index += 1) ids.push(await newConversation(bea))
    // One transaction's now(): the four are equal in time and ordered by id alone.
    await t.db.query(`update assistant_conversations set updated_at = now() where user_id = $1`, [
      bea.id,
    ])
    const pages = await listAll(bea, 3)
    const listed = pages.flat().map((conversation) => conversation.id)
    expect(listed).toHaveLength(4)
    expect(new Set(listed)).toEqual(new Set(ids))
  })

  it('keeps each user’s conversations to themselves, through the API and in the database', async () => {
    const ada = await t.user('ada')
    const bob = await t.user('bob')
    const secret = await newConversation(ada, 'Ada’s plans')
    await sendAndRead(ada, secret, 'Remember: the launch is on Friday.')

    expect((await listAll(bob, 100)).flat()).toEqual([])
    await expectError(
      await bob.get(`/api/assistant/conversations/${secret}/messages`),
      'not_found',
      404,
    )
    await expectError(
      await bob.send('PATCH', `/api/assistant/conversations/${secret}`, { title: 'Mine now' }),
      'not_found',
      404,
    )
    await expectError(
      await bob.send('DELETE', `/api/assistant/conversations/${secret}`),
      'not_found',
      404,
    )
    await expectError(await postMessage(bob, secret, 'What is the launch date?'), 'not_found', 404)

    // Row level security, with Bob's claims straight on the database.
    const seen = await withUser(t.db, claimsOf(bob.id), async (tx) => ({
      conversations: (await tx.query('select id from assistant_conversations')).rows,
      messages: (await tx.query('select id from assistant_messages')).rows,
      // Bob's own month may have begun (his refused send held nothing, but found his row).
      usage: (
        await tx.query<{ user_id: string }>('select user_id from assistant_usage')
      ).rows.filter((row) => row.user_id !== bob.id),
    }))
    expect(seen).toEqual({ conversations: [], messages: [], usage: [] })
    const intrusion = withUser(t.db, claimsOf(bob.id), (tx) =>
      tx.query(
        `insert into assistant_messages (conversation_id, user_id, role, content, status)
         values ($1, $2, 'user', 'injected', 'complete')`,
        [secret, bob.id],
      ),
    )
    await expect(intrusion).rejects.toThrow(/row-level security/)
    const { messages } = await messagesOf(ada, secret)
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant'])
  })

  it('answers bad ids, pages and bodies with catalogue errors, never a 500', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const base = '/api/assistant/conversations'
    const cases: [string, Promise<Response>, string, number][] = [
      ['an id that is not a uuid', ada.get(`${base}/42/messages`), 'not_found', 404],
      ['an injection in the id', ada.get(`${base}/1'%20or%20'1'%3D'1/messages`), 'not_found', 404],
      ['an unknown uuid', ada.get(`${base}/${crypto.randomUUID()}/messages`), 'not_found', 404],
      ['a page of 0', ada.get(`${base}?limit=0`), 'validation_failed', 422],
      ['a page of 101', ada.get(`${base}?limit=101`), 'validation_failed', 422],
      ['a page of words', ada.get(`${base}?limit=many`), 'validation_failed', 422],
      ['a fractional page', ada.get(`${base}?limit=1.5`), 'validation_failed', 422],
      ['a made-up cursor', ada.get(`${base}?cursor=not-a-cursor`), 'validation_failed', 422],
      [
        'a cursor of the wrong shape',
        ada.get(`${base}?cursor=${btoa(JSON.stringify({ at: 'yesterday', id: 'x' }))}`),
        'validation_failed',
        422,
      ],
      [
        'a title too long',
        ada.send('POST', base, { title: 'x'.repeat(121) }),
        'validation_failed',
        422,
      ],
      [
        'a blank title',
        ada.send('PATCH', `${base}/${id}`, { title: '   ' }),
        'validation_failed',
        422,
      ],
      [
        'an unknown field',
        ada.send('POST', base, { title: 'a', pinned: true }),
        'validation_failed',
        422,
      ],
      [
        'a rename without a title',
        ada.send('PATCH', `${base}/${id}`, {}),
        'validation_failed',
        422,
      ],
      [
        'an empty message',
        ada.send('POST', `${base}/${id}/messages`, { content: '  ' }),
        'validation_failed',
        422,
      ],
      [
        'a message too long',
        ada.send('POST', `${base}/${id}/messages`, { content: 'x'.repeat(16_001) }),
        'validation_failed',
        422,
      ],
      [
        'a message that is a number',
        ada.send('POST', `${base}/${id}/messages`, { content: 7 }),
        'validation_failed',
        422,
      ],
      [
        'a message as an array',
        ada.send('POST', `${base}/${id}/messages`, [1]),
        'validation_failed',
        422,
      ],
      [
        'a body that is not JSON',
        ada.request(`${base}/${id}/messages`, {
          method: 'POST',
          headers: csrfHeaders,
          body: '{"content": ',
        }),
        'validation_failed',
        422,
      ],
      [
        'a body that is text',
        ada.request(`${base}/${id}/messages`, {
          method: 'POST',
          headers: { ...csrfHeaders, 'content-type': 'text/plain' },
          body: 'hello',
        }),
        'unsupported_media_type',
        415,
      ],
      [
        'a send without the CSRF header',
        ada.request(`${base}/${id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: csrfHeaders.origin },
          body: JSON.stringify({ content: 'hi' }),
        }),
        'csrf_failed',
        403,
      ],
      [
        'a method the route lacks',
        ada.send('PATCH', `${base}/${id}/messages`, { content: 'hi' }),
        'method_not_allowed',
        405,
      ],
      ['usage when signed out', t.request('/api/assistant/usage'), 'unauthenticated', 401],
      ['the list when signed out', t.request(base), 'unauthenticated', 401],
      [
        'a send when signed out',
        t.request(`${base}/${id}/messages`, {
          method: 'POST',
          headers: csrfHeaders,
          body: JSON.stringify({ content: 'hi' }),
        }),
        'unauthenticated',
        401,
      ],
    ]
    for (const [what, pending, code, status] of cases) {
      const response = await pending
      expect({ what, status: response.status }).toEqual({ what, status })
      await expectError(response, code, status)
    }
  })

  it('gives out cursors that read back as they were written', () => {
    const cursor = { at: '2026-11-22T10:00:00.123456Z', id: crypto.randomUUID() }
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor)
    expect(decodeCursor('%%%')).toBeNull()
    expect(decodeCursor(btoa('[]'))).toBeNull()
  })
})

describe('sending a message', () => {
  it('streams the answer, stores both messages, titles the conversation and counts the tokens', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const question = 'How should I brew a pot of green tea?\nI have loose leaves.'
    const events = await sendAndRead(ada, id, question)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])

    const [first] = events
    const opening = first?.data as {
      user: ChatMessage
      assistant: ChatMessage
      conversation: Conversation
    }
    expect(opening.user).toMatchObject({ role: 'user', content: question, status: 'complete' })
    expect(opening.assistant).toMatchObject({
      role: 'assistant',
      content: '',
      status: 'streaming',
      model: 'gpt-4o-mini',
    })
    expect(opening.conversation.title).toBe('How should I brew a pot of green tea?')

    const request = chatRequest(question)
    expect(request).toMatchObject({ outcome: 'completed', model: 'gpt-4o-mini', stream: true })
    const usage = events.find((event) => event.event === 'usage')?.data
    expect(usage).toEqual({
      promptTokens: request?.promptTokens,
      completionTokens: request?.completionTokens,
      totalTokens: (request?.promptTokens ?? 0) + (request?.completionTokens ?? 0),
      estimated: false,
    })
    const done = events[events.length - 1]?.data as { message: ChatMessage }
    expect(done.message).toMatchObject({
      id: opening.assistant.id,
      status: 'complete',
      content: deltaText(events),
    })
    expect(done.message.content).toContain('local model')

    const stored = await messagesOf(ada, id)
    expect(stored.conversation.title).toBe('How should I brew a pot of green tea?')
    expect(stored.messages).toEqual([opening.user, done.message])
    expect(await usageOf(ada)).toMatchObject({
      used: usage?.totalTokens,
      reserved: 0,
      limit: FREE_LIMIT,
      periodStart: usagePeriodOf(t.clock.now()).start.toISOString(),
    })
  })

  it('keeps a title the user chose over the first message', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada, 'Kitchen')
    const events = await sendAndRead(ada, id, 'What can I cook with lentils?')
    expect((events[0]?.data as { conversation: Conversation }).conversation.title).toBe('Kitchen')
  })

  it('shows an answer whose BFF died while it streamed as cut off, once no BFF can still be writing it', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    await sendAndRead(ada, id, 'An answer that will be left streaming.')
    await sendAndRead(ada, id, 'And one that is still being written.')
    const [, older, , newer] = (await messagesOf(ada, id)).messages
    // What a crash leaves: the placeholder as `beginSend` stored it, never finished.
    const leftStreaming = (messageId: string, age: string) =>
      t.db.query(
        `update assistant_messages set status = 'streaming', content = '', prompt_tokens = null,
           completion_tokens = null, usage_estimated = null, created_at = now() - $2::interval
         where id = $1`,
        [messageId, age],
      )
    await leftStreaming(older!.id, `${abandonedAfterMs / 1000 + 60} seconds`)
    await leftStreaming(newer!.id, '5 minutes')

    const messages = (await messagesOf(ada, id)).messages
    expect(messages[1]).toMatchObject({
      id: older!.id,
      status: 'failed',
      content: '',
      error: { code: 'answer_interrupted', message: errorCatalogue.answer_interrupted.message },
    })
    // Within the hour, another BFF may still be writing it.
    expect(messages[3]).toMatchObject({ id: newer!.id, status: 'streaming', error: null })
  })

  it('sends the conversation so far with each question, within the bounds', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const first = await sendAndRead(ada, id, 'Name a fruit that is yellow.')
    const answer = deltaText(first)
    const question = 'And one that is red?'
    await sendAndRead(ada, id, question)
    const request = chatRequest(question)
    expect(request?.promptTokens).toBe(
      countPromptTokens(
        [SYSTEM_PROMPT, 'Name a fruit that is yellow.', answer, question].map((text) => ({ text })),
      ),
    )

    const store = createAssistantStore(t.db)
    const bounded = await store.loadForSend(claimsOf(ada.id), id, { messages: 3, chars: 100_000 })
    expect(bounded?.history.map((message) => message.role)).toEqual([
      'assistant',
      'user',
      'assistant',
    ])
    const short = await store.loadForSend(claimsOf(ada.id), id, { messages: 10, chars: 1 })
    expect(short?.history).toEqual([])
  })

  it('holds for a send the bound of exactly the history it sends, read beside it', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    // Characters of two, three and four bytes: the bound counts bytes.
    await sendAndRead(ada, id, 'Name a fruit that is yellow: Banane, Zitrone, 柠檬 🍋.')
    await sendAndRead(ada, id, 'And one that is red?')
    const store = createAssistantStore(t.db)
    const quota = createQuota(t.db)
    const period = usagePeriodOf(Date.now())
    const system = { role: 'system', content: SYSTEM_PROMPT } as const
    const question = { role: 'user', content: 'And a green one?' } as const
    const holdFor = (userId: string, bounds: { messages: number; chars: number }) =>
      quota.reserve({
        userId,
        period,
        limit: 1_000_000_000,
        tokens: reservationFor([system, question], 256),
        history: { conversationId: id, bounds },
      })
    for (const bounds of [
      { messages: 20, chars: 100_000 },
      { messages: 3, chars: 100_000 },
      { messages: 20, chars: 60 },
      { messages: 20, chars: 1 },
    ]) {
      const loaded = await store.loadForSend(claimsOf(ada.id), id, bounds)
      const held = await holdFor(ada.id, bounds)
      if (!held.ok) throw new Error('the hold was refused')
      expect(held.tokens, JSON.stringify(bounds)).toBe(
        reservationFor([system, ...loaded!.history, question], 256),
      )
      await quota.settle(held.id, 0)
    }
    // Another user's conversation adds nothing to their hold.
    const bob = await t.user('bob')
    const bobs = await holdFor(bob.id, { messages: 20, chars: 100_000 })
    expect(bobs.ok && bobs.tokens).toBe(reservationFor([system, question], 256))
  })

  it('pushes usage changes to the user’s open pages', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const live = await ada.events()
    await live.next((frame) => frame.data.includes('connection.opened'))
    await sendAndRead(ada, id, 'Tell me about the moon.')
    const usageEvents = async () => {
      const frames = live.frames.filter((frame) => frame.data.includes(USAGE_EVENT_TYPE))
      return frames.length >= 2 ? frames : undefined
    }
    await live.next(
      (frame) => frame.data.includes(USAGE_EVENT_TYPE) && frame.data.includes('"reserved":0'),
    )
    const [held, settled] = (await waitFor(usageEvents)).map((frame) =>
      usageSchema.parse((JSON.parse(frame.data) as { data: unknown }).data),
    )
    expect(held?.reserved).toBeGreaterThan(0)
    expect(settled).toEqual(await usageOf(ada))
    expect(settled?.used).toBeGreaterThan(0)
    await live.cancel()
  })

  it('refuses a flagged message before the model sees it, storing and counting nothing', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const content = `Please ${MODERATION_TEST_PHRASE} now`
    const response = await postMessage(ada, id, content)
    await expectError(response, 'content_flagged', 422)
    expect((await messagesOf(ada, id)).messages).toEqual([])
    expect(await usageOf(ada)).toMatchObject({ used: 0, reserved: 0 })
    const requests = t.openai.control
      .requests()
      .filter((entry) => entry.lastUserMessage === content)
    expect(requests.map((entry) => entry.path)).toEqual(['/v1/moderations'])
    // The conversation works on.
    expect(eventOrder(await sendAndRead(ada, id, 'Say something kind.'))).toContain('done')
  })

  it('refuses a message that would pass the month’s limit, with the numbers', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const content = 'One more question, please.'
    await setUsed(ada.id, FREE_LIMIT - holdOf(content) + 1)
    const refused = await postMessage(ada, id, content)
    // Until the allowance comes back: the first of next month.
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(31 * 24 * 3600)
    const body = await expectError(refused, 'quota_exceeded', 429)
    expect(body.error.details).toMatchObject({
      used: FREE_LIMIT - holdOf(content) + 1,
      reserved: 0,
      limit: FREE_LIMIT,
      requested: holdOf(content),
    })
    expect((await messagesOf(ada, id)).messages).toEqual([])
    expect(chatRequest(content)).toBeUndefined()
  })

  it('lets exactly one of 50 parallel sends through for a user one message short of the limit', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const content = 'Quick question number one.'
    await setUsed(ada.id, FREE_LIMIT - holdOf(content))
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => postMessage(ada, id, content)),
    )
    const answered = responses.filter((response) => response.status === 200)
    const refused = responses.filter((response) => response.status !== 200)
    expect(answered).toHaveLength(1)
    for (const response of refused) await expectError(response, 'quota_exceeded', 429)
    const [answer] = answered
    if (answer === undefined) throw new Error('expected one answer')
    expect(eventOrder(await readAnswer(answer))).toEqual(['message', 'delta*', 'usage', 'done'])
    const usage = await usageOf(ada)
    expect(usage.reserved).toBe(0)
    expect(usage.used).toBeLessThanOrEqual(FREE_LIMIT)
    expect((await messagesOf(ada, id)).messages).toHaveLength(2)
  })

  it('lets exactly as many parallel sends through as fit, and counts each of them', async () => {
    const ada = await t.user('ada')
    const content = 'Which planet is largest?'
    const ids = await Promise.all(Array.from({ length: 50 }, () => newConversation(ada)))
    const hold = holdOf(content)
    await setUsed(ada.id, FREE_LIMIT - 3 * hold - Math.floor(hold / 2))
    const responses = await Promise.all(ids.map((id) => postMessage(ada, id, content)))
    const answered = responses.filter((response) => response.status === 200)
    expect(answered).toHaveLength(3)
    for (const response of responses.filter((candidate) => candidate.status !== 200))
      await expectError(response, 'quota_exceeded', 429)
    const totals = await Promise.all(
      answered.map(async (response) => {
        const events = await readAnswer(response)
        return Number(events.find((event) => event.event === 'usage')?.data.totalTokens)
      }),
    )
    const usage = await usageOf(ada)
    expect(usage).toMatchObject({
      used:
        FREE_LIMIT -
        3 * hold -
        Math.floor(hold / 2) +
        totals.reduce((sum, total) => sum + total, 0),
      reserved: 0,
    })
  })
})

describe('the per-user send limit', () => {
  let limited: AssistantTestApp
  beforeAll(async () => {
    limited = await startAssistantTestApp({ env: { ASSISTANT_RATE_LIMIT: '2' } })
  }, databaseSetupTimeout)
  afterAll(() => limited.finish())

  it('refuses a user’s third send in a minute with a wait, and lets other users send', async () => {
    const ada = await limited.user('ada')
    const id = await newConversation(ada)
    await sendAndRead(ada, id, 'First.')
    await sendAndRead(ada, id, 'Second.')
    const moderated = () =>
      limited.openai.control.requests().filter((request) => request.path === '/v1/moderations')
        .length
    expect(moderated()).toBe(2)
    const third = await postMessage(ada, id, 'Third.')
    const body = await expectError(third, 'rate_limited', 429)
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(body.error.details?.retryAfterSeconds).toBeGreaterThan(0)
    // The first refusal was checked beside moderation and the hold (given back); from then on
    // this replica refuses at once, asking nobody, until the window ends.
    const fourth = await postMessage(ada, id, 'Fourth.')
    const again = await expectError(fourth, 'rate_limited', 429)
    expect(again.error.details?.retryAfterSeconds).toBeGreaterThan(0)
    expect(moderated()).toBe(3)
    const refusedUsage = usageSchema.parse(await json(await ada.get('/api/assistant/usage')))
    expect(refusedUsage.reserved).toBe(0)
    const stored = await limited.db.query<{ count: number }>(
      'select count(*)::int as count from assistant_messages where conversation_id = $1',
      [id],
    )
    expect(stored.rows[0]?.count).toBe(4)

    const bob = await limited.user('bob')
    expect(eventOrder(await sendAndRead(bob, await newConversation(bob), 'Hello.'))).toContain(
      'done',
    )

    limited.clock.advance(61_000)
    expect(eventOrder(await sendAndRead(ada, id, 'Fifth, a minute later.'))).toContain('done')
  })
})
