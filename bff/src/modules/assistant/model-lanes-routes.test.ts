// "Priority answers" through the routes (docs/decisions/028): with the model's requests capped,
// a Free send waits for a slot while a Pro send takes the lane kept for it at once, and a waiting
// send that is stopped or times out never reaches the model, gives its hold back and costs nothing.
import { messageListSchema, usageSchema } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { csrfHeaders, sseReader } from '../../testing/app.ts'
import { newConversation, readAnswer, startAssistantTestApp } from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp

beforeAll(async () => {
  t = await startAssistantTestApp({
    env: {
      ASSISTANT_MAX_ANSWER_TOKENS: '256',
      // Two requests to the model at once, one of them kept for priority plans.
      ASSISTANT_MODEL_CONCURRENCY: '2',
      ASSISTANT_PRIORITY_RESERVED: '1',
      ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '2000',
    },
  })
}, databaseSetupTimeout)
afterAll(() => t.finish())

async function subscribePro(person: Person) {
  const customer = `cus_${person.id.slice(0, 8)}`
  await t.db.query(
    'insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)',
    [person.id, customer],
  )
  await t.db.query(
    `insert into public.billing_subscriptions
       (stripe_subscription_id, user_id, stripe_customer_id, plan, status, stripe_created_at, version_at)
     values ($1, $2, $3, 'pro', 'active', now(), now())`,
    [`sub_${person.id.slice(0, 8)}`, person.id, customer],
  )
  t.clock.advance(5_000)
}

const post = (person: Person, id: string, content: string) =>
  person.request(`/api/assistant/conversations/${id}/messages`, {
    method: 'POST',
    headers: csrfHeaders,
    body: JSON.stringify({ content }),
  })

/** Stop, as the page's button sends it (heard by whichever replica streams the answer). */
async function stopAnswers(person: Person, id: string) {
  const response = await person.request(`/api/assistant/conversations/${id}/stop`, {
    method: 'POST',
    headers: csrfHeaders,
    body: '{}',
  })
  expect(response.status).toBe(202)
}

/** A send whose answer streams slowly, holding its slot for seconds; resolves at its first token. */
async function holdASlot(person: Person, content: string) {
  t.openai.control.armFault({ type: 'slow', tokensPerSecond: 4, match: content })
  const id = await newConversation(person)
  const response = await post(person, id, content)
  expect(response.status).toBe(200)
  const reader = sseReader(response)
  await reader.next((frame) => frame.event === 'delta')
  return { stop: () => stopAnswers(person, id), reader }
}

const usageOf = async (person: Person) =>
  usageSchema.parse(await (await person.get('/api/assistant/usage')).json())

const askedTheModel = (content: string) =>
  t.openai.control
    .requests()
    .some((record) => record.path === '/v1/chat/completions' && record.lastUserMessage === content)

describe('priority answers', () => {
  it('starts a Pro answer at once while a Free send waits for the model', async () => {
    const free = await t.user('free-burst')
    const pro = await t.user('pro-first')
    await subscribePro(pro)
    const holder = await holdASlot(free, 'Hold the shared slot please')
    const waitingId = await newConversation(free)
    const waiting = sseReader(await post(free, waitingId, 'I wait for a slot'))
    // The opening event comes after a quarter of a second without a token; no delta follows.
    await waiting.next((frame) => frame.event === 'message')
    expect(askedTheModel('I wait for a slot')).toBe(false)

    const started = performance.now()
    const proAnswer = sseReader(await post(pro, await newConversation(pro), 'Pro goes first'))
    await proAnswer.next((frame) => frame.event === 'delta')
    expect(performance.now() - started).toBeLessThan(1500)
    expect(waiting.frames.some((frame) => frame.event === 'delta')).toBe(false)
    await proAnswer.closed()
    expect(proAnswer.frames.at(-1)?.event).toBe('done')

    // The Free send gets the slot when the holder's answer ends (stopped here).
    await holder.stop()
    await waiting.closed(5000)
    expect(waiting.frames.at(-1)?.event).toBe('done')
    expect(askedTheModel('I wait for a slot')).toBe(true)
  })

  it('gives a waiting send’s hold back and charges nothing when it is stopped', async () => {
    const free = await t.user('stopped-waiting')
    const other = await t.user('slot-holder')
    const holder = await holdASlot(other, 'Another hold of the shared slot')
    const id = await newConversation(free)
    const waiting = sseReader(await post(free, id, 'Stopped while waiting'))
    await waiting.next((frame) => frame.event === 'message')
    expect((await usageOf(free)).reserved).toBeGreaterThan(0)
    await stopAnswers(free, id)
    await expect.poll(async () => (await usageOf(free)).reserved, { timeout: 5000 }).toBe(0)
    expect((await usageOf(free)).used).toBe(0)
    const { messages } = messageListSchema.parse(
      await (await free.get(`/api/assistant/conversations/${id}/messages`)).json(),
    )
    expect(messages.map((m) => [m.role, m.status, m.content, m.usage])).toEqual([
      ['user', 'complete', 'Stopped while waiting', null],
      ['assistant', 'partial', '', null],
    ])
    await holder.stop()
    // The stopped send never reached the model, even once the slot came free.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(askedTheModel('Stopped while waiting')).toBe(false)
  })

  it('ends a send that waits past the first-token timeout as timed out, charging nothing', async () => {
    const free = await t.user('timed-out-waiting')
    const holder = await holdASlot(await t.user('slow-holder'), 'A long hold of the slot')
    const id = await newConversation(free)
    const events = await readAnswer(await post(free, id, 'Waited too long'), 8000)
    const last = events.at(-1)
    expect(last?.event).toBe('error')
    expect(last?.data.code).toBe('upstream_timeout')
    expect(events.find((event) => event.event === 'usage')?.data.totalTokens).toBe(0)
    expect(await usageOf(free)).toMatchObject({ used: 0, reserved: 0 })
    expect(askedTheModel('Waited too long')).toBe(false)
    await holder.stop()
    // Its end is stored before the app closes its database.
    await holder.reader.closed(5000)
  })
})
