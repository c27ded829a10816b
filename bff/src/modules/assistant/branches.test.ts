// Edits, regenerates and versions (issue 20, docs/decisions/031), through the routes: each makes
// a branch, sends the model the history of its own path, is checked, held and counted as a send
// is, and is refused with a catalogued error when it names a message it may not change.
import { errorBodySchema, isCatalogued, messageListSchema, usageSchema } from '@tessera/contracts'
import type { ChatMessage, Usage } from '@tessera/contracts'
import { countPromptTokens } from '@tessera/emulators/openai/tokenizer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withUser } from '../../platform/db/with-user.ts'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { SYSTEM_PROMPT } from './assistant.ts'
import {
  deltaText,
  eventOrder,
  newConversation,
  readAnswer,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AnswerEvent, AssistantTestApp } from '../../testing/assistant.ts'
import { csrfHeaders } from '../../testing/app.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp

beforeAll(async () => {
  t = await startAssistantTestApp({ env: { ASSISTANT_MAX_ANSWER_TOKENS: '256' } })
}, databaseSetupTimeout)
afterAll(() => t.finish())

const claimsOf = (sub: string) => ({ sub, role: 'authenticated', aud: 'authenticated' })
const path = (id: string, messageId: string, action: string) =>
  `/api/assistant/conversations/${id}/messages/${messageId}/${action}`

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as T
}

async function refused(response: Response, status: number, code: string) {
  const body = errorBodySchema.parse(await response.clone().json())
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code })
  expect(isCatalogued(body.error.code, response.status)).toBe(true)
}

/** A PUT, which the test browser's `send` does not make. */
const put = (who: TestBrowser, url: string, body: unknown) =>
  who.request(url, { method: 'PUT', headers: csrfHeaders, body: JSON.stringify(body) })

const messagesOf = async (who: TestBrowser, id: string) =>
  messageListSchema.parse(await json(await who.get(`/api/assistant/conversations/${id}/messages`)))
    .messages

const usageOf = async (who: TestBrowser): Promise<Usage> =>
  usageSchema.parse(await json(await who.get('/api/assistant/usage')))

const edit = async (who: TestBrowser, id: string, messageId: string, content: string) =>
  readAnswer(await who.send('POST', path(id, messageId, 'edit'), { content }))
const regenerate = async (who: TestBrowser, id: string, messageId: string) =>
  readAnswer(await who.send('POST', path(id, messageId, 'regenerate'), {}))
const show = async (who: TestBrowser, id: string, messageId: string) =>
  messageListSchema.parse(await json(await put(who, path(id, messageId, 'active'), {}))).messages

const opening = (events: AnswerEvent[]) =>
  events.find((event) => event.event === 'message')?.data as {
    user: ChatMessage
    assistant: ChatMessage
  }

/** The prompt tokens of every chat request whose last user message was `content`, in order. */
const promptsFor = (content: string) =>
  t.openai.control
    .requests()
    .filter((entry) => entry.path === '/v1/chat/completions' && entry.lastUserMessage === content)
    .map((entry) => entry.promptTokens)

/** Every answer stored for a user, every version: what they must have been charged for. */
async function storedUsage(userId: string): Promise<number> {
  const { rows } = await t.db.query<{ total: number | string | null }>(
    `select sum(prompt_tokens + completion_tokens) as total from assistant_messages
     where user_id = $1 and role = 'assistant'`,
    [userId],
  )
  return Number(rows[0]?.total ?? 0)
}

/** A conversation of two questions and their answers. */
async function twoTurns(who: Person) {
  const id = await newConversation(who)
  // Questions of their own, so the stand-in's record of each is this test's.
  const tag = crypto.randomUUID().slice(0, 8)
  await sendAndRead(who, id, `Name a fruit that is yellow (${tag}).`)
  await sendAndRead(who, id, `And one that is red (${tag})?`)
  return { id, messages: await messagesOf(who, id) }
}

describe('editing a question', () => {
  it('answers the new version, replacing the answers after it, and keeps the old one as a branch', async () => {
    const ada = await t.user('ada')
    const { id, messages: before } = await twoTurns(ada)
    const [q1, a1, q2, a2] = before
    expect(before.map((m) => m.versions)).toEqual([undefined, undefined, undefined, undefined])

    const events = await edit(ada, id, q2!.id, 'And one that is green?')
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
    const { user, assistant } = opening(events)
    expect(user.content).toBe('And one that is green?')
    expect(user.id).not.toBe(q2!.id)
    // The model saw the path before the edited question, and the new question: not the old one.
    expect(promptsFor('And one that is green?')).toEqual([
      countPromptTokens(
        [SYSTEM_PROMPT, q1!.content, a1!.content, 'And one that is green?'].map((text) => ({
          text,
        })),
      ),
    ])

    const after = await messagesOf(ada, id)
    expect(after.map((m) => m.id)).toEqual([q1!.id, a1!.id, user.id, assistant.id])
    expect(after[2]!.versions).toEqual([q2!.id, user.id])
    expect(after[3]!.content).toBe(deltaText(events))
    expect(after[3]!.versions).toBeUndefined()

    // Paging back shows the first version with its own answer, as it was.
    const back = await show(ada, id, q2!.id)
    expect(back.map((m) => m.id)).toEqual([q1!.id, a1!.id, q2!.id, a2!.id])
    expect(back[3]!.content).toBe(a2!.content)
    expect(await messagesOf(ada, id)).toEqual(back)

    // A send continues the thread shown, with its history.
    await sendAndRead(ada, id, 'Thanks!')
    expect(promptsFor('Thanks!')).toEqual([
      countPromptTokens(
        [SYSTEM_PROMPT, q1!.content, a1!.content, q2!.content, a2!.content, 'Thanks!'].map(
          (text) => ({ text }),
        ),
      ),
    ])
    const continued = await messagesOf(ada, id)
    expect(continued.map((m) => m.content).slice(0, 4)).toEqual(
      [q1, a1, q2, a2].map((m) => m!.content),
    )
    expect(continued).toHaveLength(6)
    // And the edited branch kept its own end.
    const edited = await show(ada, id, user.id)
    expect(edited.map((m) => m.id)).toEqual([q1!.id, a1!.id, user.id, assistant.id])
  })

  it('edits the first question of a conversation into a new branch from nothing', async () => {
    const ada = await t.user('ada')
    const { id, messages } = await twoTurns(ada)
    const events = await edit(ada, id, messages[0]!.id, 'Name a fruit that is purple.')
    expect(promptsFor('Name a fruit that is purple.')).toEqual([
      countPromptTokens([SYSTEM_PROMPT, 'Name a fruit that is purple.'].map((text) => ({ text }))),
    ])
    const after = await messagesOf(ada, id)
    expect(after.map((m) => m.id)).toEqual([opening(events).user.id, opening(events).assistant.id])
    expect(after[0]!.versions).toEqual([messages[0]!.id, opening(events).user.id])
  })
})

describe('regenerating an answer', () => {
  it('answers the same question again with the same history, as a new version of the answer', async () => {
    const ada = await t.user('ada')
    const { id, messages } = await twoTurns(ada)
    const [, , q2, a2] = messages
    const events = await regenerate(ada, id, a2!.id)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
    expect(opening(events).user).toEqual(q2)
    const prompts = promptsFor(q2!.content)
    expect(prompts).toHaveLength(2)
    expect(prompts[1]).toBe(prompts[0])

    const after = await messagesOf(ada, id)
    expect(after.map((m) => m.id)).toEqual([
      ...messages.slice(0, 3).map((m) => m.id),
      opening(events).assistant.id,
    ])
    expect(after[3]!.versions).toEqual([a2!.id, opening(events).assistant.id])
    expect(after[2]!.versions).toBeUndefined()
    const again = await regenerate(ada, id, opening(events).assistant.id)
    expect((await messagesOf(ada, id))[3]!.versions).toHaveLength(3)
    expect(eventOrder(again)).toEqual(['message', 'delta*', 'usage', 'done'])
  })
})

describe('metering', () => {
  it('counts every generated answer exactly once, regenerated and edited ones included', async () => {
    const ada = await t.user('ada')
    const { id, messages } = await twoTurns(ada)
    let answers = 2
    for (let round = 0; round < 3; round += 1) {
      const latest = (await messagesOf(ada, id)).at(-1)!
      await regenerate(ada, id, latest.id)
      answers += 1
    }
    await edit(ada, id, messages[0]!.id, 'Name a fruit that is orange.')
    answers += 1
    const { rows } = await t.db.query<{ count: number | string }>(
      `select count(*) as count from assistant_messages where user_id = $1 and role = 'assistant'
       and prompt_tokens is not null`,
      [ada.id],
    )
    expect(Number(rows[0]!.count)).toBe(answers)
    const usage = await usageOf(ada)
    expect(usage.reserved).toBe(0)
    expect(usage.used).toBe(await storedUsage(ada.id))
    // Paging between versions generates nothing and charges nothing.
    await show(ada, id, messages[0]!.id)
    expect((await usageOf(ada)).used).toBe(usage.used)
  })
})

describe('refusals', () => {
  let ada: Person
  let bob: Person
  let id: string
  let messages: ChatMessage[]
  beforeAll(async () => {
    ada = await t.user('ada')
    bob = await t.user('bob')
    ;({ id, messages } = await twoTurns(ada))
  })

  it('refuses an edit of an answer and a regenerate of a question with what to do instead', async () => {
    const before = await usageOf(ada)
    await refused(
      await ada.send('POST', path(id, messages[1]!.id, 'edit'), { content: 'No.' }),
      422,
      'message_not_editable',
    )
    await refused(
      await ada.send('POST', path(id, messages[0]!.id, 'regenerate'), {}),
      422,
      'message_not_regenerable',
    )
    expect(await usageOf(ada)).toEqual(before)
    expect(await messagesOf(ada, id)).toEqual(messages)
  })

  it('refuses another user’s messages as if they did not exist, through the API and in the database', async () => {
    const before = await usageOf(ada)
    const [q1, a1] = messages
    await refused(
      await bob.send('POST', path(id, q1!.id, 'edit'), { content: 'Mine' }),
      404,
      'not_found',
    )
    await refused(await bob.send('POST', path(id, a1!.id, 'regenerate'), {}), 404, 'not_found')
    await refused(await put(bob, path(id, q1!.id, 'active'), {}), 404, 'not_found')
    // Bob's own conversation naming Ada's message: not found either.
    const his = await newConversation(bob)
    await refused(await bob.send('POST', path(his, a1!.id, 'regenerate'), {}), 404, 'not_found')
    expect(await usageOf(ada)).toEqual(before)
    expect(await messagesOf(ada, id)).toEqual(messages)

    // Under RLS, Bob can neither select a version of Ada's nor hang a message under hers.
    const switched = await withUser(t.db, claimsOf(bob.id), (tx) =>
      tx.query('update assistant_messages set selected = true where id = $1', [q1!.id]),
    )
    expect(switched.rowCount).toBe(0)
    await expect(
      withUser(t.db, claimsOf(bob.id), (tx) =>
        tx.query(
          `insert into assistant_messages (conversation_id, user_id, role, content, status, parent_id)
           values ($1, $2, 'user', 'sneaky', 'complete', $3)`,
          [his, bob.id, a1!.id],
        ),
      ),
    ).rejects.toThrow(/foreign key/)
    await expect(
      withUser(t.db, claimsOf(bob.id), (tx) =>
        tx.query(
          `insert into assistant_messages (conversation_id, user_id, role, content, status, parent_id)
           values ($1, $2, 'user', 'sneaky', 'complete', $3)`,
          [id, bob.id, a1!.id],
        ),
      ),
    ).rejects.toThrow(/row-level security/)
  })

  it('refuses ids that are not messages and bodies that are not what each route takes', async () => {
    const [q1, a1] = messages
    await refused(
      await ada.send('POST', path(id, 'nope', 'edit'), { content: 'x' }),
      404,
      'not_found',
    )
    await refused(
      await ada.send('POST', path(id, crypto.randomUUID(), 'regenerate'), {}),
      404,
      'not_found',
    )
    await refused(await put(ada, path(id, crypto.randomUUID(), 'active'), {}), 404, 'not_found')
    await refused(
      await ada.send('POST', path(id, q1!.id, 'edit'), { content: '  ' }),
      422,
      'validation_failed',
    )
    await refused(await ada.send('POST', path(id, q1!.id, 'edit'), {}), 422, 'validation_failed')
    await refused(
      await ada.send('POST', path(id, a1!.id, 'regenerate'), { content: 'x' }),
      422,
      'validation_failed',
    )
    await refused(await put(ada, path(id, a1!.id, 'active'), []), 422, 'validation_failed')
    expect(await messagesOf(ada, id)).toEqual(messages)
  })

  it('refuses an edit or a regenerate while an answer in the conversation is being written, not after its BFF died', async () => {
    const [q1, a1, q2] = messages
    const before = await usageOf(ada)
    // An answer streaming now (as another tab's send leaves it until it ends).
    const streaming = crypto.randomUUID()
    await t.db.query(
      `insert into assistant_messages (id, conversation_id, user_id, role, content, status, parent_id, selected)
       values ($1, $2, $3, 'assistant', '', 'streaming', $4, false)`,
      [streaming, id, ada.id, q2!.id],
    )
    await refused(
      await ada.send('POST', path(id, q1!.id, 'edit'), { content: 'Other' }),
      409,
      'answer_in_progress',
    )
    await refused(
      await ada.send('POST', path(id, a1!.id, 'regenerate'), {}),
      409,
      'answer_in_progress',
    )
    expect(await usageOf(ada)).toEqual(before)
    // One its BFF left behind long ago no longer blocks.
    await t.db.query(
      `update assistant_messages set created_at = now() - interval '1 day' where id = $1`,
      [streaming],
    )
    const events = await regenerate(ada, id, a1!.id)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
  })
})

describe('a conversation another member shared', () => {
  it('is read-only: no edit, regenerate or paging for the other members', async () => {
    const ada = await t.user('ada')
    const bob = await t.user('bob')
    const created = await json<{ workspace: { id: string } }>(
      await ada.send('POST', '/api/workspaces', { name: 'Orbit' }),
      201,
    )
    const team = created.workspace.id
    await t.db.query(
      `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member')`,
      [team, bob.id],
    )
    for (const who of [ada, bob])
      await json(await who.send('POST', '/api/workspaces/current', { workspaceId: team }))
    const id = await newConversation(ada, 'Launch notes')
    await sendAndRead(ada, id, 'hello team')
    await json(await ada.send('PATCH', `/api/assistant/conversations/${id}`, { shared: true }))
    const [question, answer] = await messagesOf(bob, id)
    await refused(
      await bob.send('POST', path(id, question!.id, 'edit'), { content: 'mine' }),
      403,
      'conversation_read_only',
    )
    await refused(
      await bob.send('POST', path(id, answer!.id, 'regenerate'), {}),
      403,
      'conversation_read_only',
    )
    await refused(await put(bob, path(id, answer!.id, 'active'), {}), 403, 'conversation_read_only')
    // The author may: a team conversation's regenerate holds from the pool like its sends.
    const events = await regenerate(ada, id, answer!.id)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
    expect((await messagesOf(bob, id))[1]!.versions).toHaveLength(2)
  })
})
