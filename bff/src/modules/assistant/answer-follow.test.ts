import { messageListSchema, liveEventSchema } from '@tessera/contracts'
import type { ChatMessage } from '@tessera/contracts'
import {
  ANSWER_DELTA_EVENT_TYPE,
  ANSWER_DONE_EVENT_TYPE,
  answerDeltaSchema,
  answerDoneSchema,
} from '@tessera/contracts/assistant-live'
import type { AnswerDelta, AnswerDone } from '@tessera/contracts/assistant-live'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { sseReader, waitFor } from '../../testing/app.ts'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import {
  deltaText,
  newConversation,
  parseEvents,
  postMessage,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { createEventHub } from '../events/event-hub.ts'
import { createOutboxBus, startEventRelay } from '../events/event-outbox.ts'
import type { EventBus, EventLog, EventRelay } from '../events/event-outbox.ts'

// Answers other tabs can follow (docs/decisions/032), with live events through the outbox as the
// Node entry runs them: the batches, the end and Stop all travel through PostgreSQL, as they do
// between replicas.
const hub = createEventHub()
let relay: EventRelay | undefined
let t: AssistantTestApp
let ada: TestBrowser & { id: string }
const bus: EventBus = { publish: (message, tx) => createOutboxBus(t.db).publish(message, tx) }
const log: EventLog = {
  position: () => relay?.position() ?? 0,
  since: (after, topics) => relay?.since(after, topics) ?? Promise.resolve(null),
}

beforeAll(async () => {
  t = await startAssistantTestApp({ deps: { hub, outbox: { bus, log } } })
  relay = await startEventRelay({
    sql: t.db,
    hub,
    logger: createLogger({ level: 'silent' }),
    retentionMs: 600_000,
    pollMs: 200,
  })
  ada = await t.user('follow')
}, databaseSetupTimeout)
afterAll(async () => {
  await relay?.close()
  await t.finish()
})

const unique = (text: string) => `${text} [${crypto.randomUUID().slice(0, 8)}]`

async function messagesOf(id: string): Promise<ChatMessage[]> {
  const response = await ada.get(`/api/assistant/conversations/${id}/messages`)
  return messageListSchema.parse(await response.json()).messages
}

type Stream = Awaited<ReturnType<TestBrowser['events']>>

type AnswerEvent = { id: number; delta: AnswerDelta } | { id: number; done: AnswerDone }

/** The answer events a tab's live stream carried so far, with their outbox ids. */
function answerEventsOf(stream: Stream): AnswerEvent[] {
  return stream.frames.flatMap((frame): AnswerEvent[] => {
    if (frame.event !== 'tessera') return []
    const event = liveEventSchema.parse(JSON.parse(frame.data))
    if (event.type === ANSWER_DELTA_EVENT_TYPE)
      return [{ id: Number(frame.id), delta: answerDeltaSchema.parse(event.data) }]
    if (event.type === ANSWER_DONE_EVENT_TYPE)
      return [{ id: Number(frame.id), done: answerDoneSchema.parse(event.data) }]
    return []
  })
}

describe('an answer other tabs follow', () => {
  it('stores the text so far in batches, publishes each with its offset without gap or overlap, then the stored end once', async () => {
    const id = await newConversation(ada)
    const tab = await ada.events()
    await tab.next((frame) => frame.data.includes('connection.opened'))
    const content = unique('A question another tab watches.')
    t.openai.control.armFault({ type: 'slow', tokensPerSecond: 40, match: content })
    const reader = sseReader(await postMessage(ada, id, content))
    await reader.next((frame) => frame.event === 'message')

    // Mid-answer, a tab that opens the conversation reads the text so far from the row.
    const midway = await waitFor(async () => {
      const last = (await messagesOf(id)).at(-1)
      return last?.status === 'streaming' && last.content.length > 0 ? last : undefined
    })
    await reader.closed(15_000)
    const sent = parseEvents(reader.frames)
    const final = sent.at(-1)?.data.message as ChatMessage
    expect(final.status).toBe('complete')
    expect(final.content).toBe(deltaText(sent))
    expect(final.content.startsWith(midway.content)).toBe(true)

    await tab.next((frame) => frame.data.includes(ANSWER_DONE_EVENT_TYPE), 5000)
    const events = answerEventsOf(tab)
    const deltas = events.flatMap((event) => ('delta' in event ? [event.delta] : []))
    const dones = events.flatMap((event) => ('done' in event ? [event.done] : []))
    // Several batches, each starting where the one before ended.
    expect(deltas.length).toBeGreaterThanOrEqual(2)
    let offset = 0
    for (const delta of deltas) {
      expect(delta).toMatchObject({ conversationId: id, messageId: final.id, offset })
      offset += delta.text.length
    }
    // The batches are a prefix of the answer (its last words may come only with the end).
    const batched = deltas.map((delta: AnswerDelta) => delta.text).join('')
    expect(final.content.startsWith(batched)).toBe(true)
    // The end comes once, after every batch, with the answer as stored.
    expect(dones).toEqual([{ conversationId: id, message: final }])
    expect(events.at(-1)).toHaveProperty('done')
    expect((await messagesOf(id)).at(-1)).toEqual(final)
    // Far fewer writes than tokens: batches, not a write per token.
    const tokens = sent.filter((event) => event.event === 'delta').length
    expect(deltas.length).toBeLessThan(tokens)
    await tab.cancel()
  })

  it('keeps streaming an answer whose tab went away, and a new tab replays what it missed', async () => {
    const id = await newConversation(ada)
    const tab = await ada.events()
    const opened = await tab.next((frame) => frame.data.includes('connection.opened'))
    await tab.cancel()
    const content = unique('A question whose page reloads.')
    t.openai.control.armFault({ type: 'slow', tokensPerSecond: 60, match: content })
    const reader = sseReader(await postMessage(ada, id, content))
    await reader.next((frame) => frame.event === 'delta')
    await reader.cancel()
    // The reloaded tab resumes its live stream where it was and hears the rest, to the end.
    const back = sseReader(await ada.get(`/api/events?lastEventId=${opened.id ?? ''}`))
    await back.next((frame) => frame.data.includes(ANSWER_DONE_EVENT_TYPE), 15_000)
    const done = answerEventsOf(back).flatMap((event) => ('done' in event ? [event.done] : []))
    expect(done).toHaveLength(1)
    expect(done[0]?.message.status).toBe('complete')
    expect((await messagesOf(id)).at(-1)).toEqual(done[0]?.message)
    await back.cancel()
  })

  it('stops the answer when another tab asks, through the outbox, keeping it partial', async () => {
    const id = await newConversation(ada)
    const content = unique('A question another tab stops.')
    t.openai.control.armFault({ type: 'slow', tokensPerSecond: 20, match: content })
    const reader = sseReader(await postMessage(ada, id, content))
    await reader.next((frame) => frame.event === 'delta')
    const stopped = await ada.send('POST', `/api/assistant/conversations/${id}/stop`, {})
    expect(stopped.status).toBe(202)
    expect(await stopped.json()).toEqual({ streaming: 1 })
    await reader.closed(5000)
    const events = parseEvents(reader.frames)
    const end = events.at(-1)?.data.message as ChatMessage
    expect(end).toMatchObject({ status: 'partial', error: null })
    expect(end.content).toBe(deltaText(events))
    expect((await messagesOf(id)).at(-1)).toEqual(end)
  })
})
