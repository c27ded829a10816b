import type { ChatMessage, Conversation } from '@tessera/contracts'
import type { Sql, SqlTransaction } from '@tessera/db/sql'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createAnswerStream } from './answer-stream.ts'
import type { AnswerChunk, ChatModel } from './model.ts'
import { usagePeriodOf } from './period.ts'
import type { Quota, UsageCounters } from './quota.ts'
import type { AnswerSink, AssistantSettings, PreparedSend } from './send.ts'
import type { AssistantStore } from './store.ts'

/**
 * The order of what a send does once its model answers, seen from fakes of everything it talks
 * to: the browser's stream, the database's statements, the user's other pages.
 */
const settings: AssistantSettings = {
  moderation: false,
  firstTokenTimeoutMs: 5000,
  idleTimeoutMs: 5000,
  maxAnswerTokens: 256,
  historyMessages: 20,
  historyChars: 10_000,
  ratePerMinute: 60,
}

const counters: UsageCounters = { used: 0, reserved: 300 }

function chunk(text: string, finishReason: string | null = null): AnswerChunk {
  return { text, finishReason, usage: null }
}

function message(role: ChatMessage['role'], content: string): ChatMessage {
  return {
    id: crypto.randomUUID(),
    role,
    content,
    status: role === 'user' ? 'complete' : 'streaming',
    model: role === 'user' ? null : 'gpt-4o-mini',
    usage: null,
    error: null,
    createdAt: new Date(0).toISOString(),
  }
}

function prepared(): PreparedSend {
  const conversation = {
    id: crypto.randomUUID(),
    title: 'Tides',
    createdAt: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
    shared: false,
    model: 'gpt-4o-mini',
  } as Conversation
  return {
    sender: {
      userId: crypto.randomUUID(),
      claims: { sub: 'user' } as PreparedSend['sender']['claims'],
    },
    requestId: crypto.randomUUID(),
    conversationId: conversation.id,
    content: 'How do tides work?',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'How do tides work?' }],
    reservation: { id: crypto.randomUUID(), tokens: 300, counters },
    period: usagePeriodOf(0),
    limit: 50_000,
    opening: {
      user: message('user', 'How do tides work?'),
      assistant: message('assistant', ''),
      conversation,
    },
  }
}

/** Runs one send against a model answering `chunks` at once; returns what happened, in order. */
async function runOnce(chunks: AnswerChunk[]): Promise<string[]> {
  const steps: string[] = []
  const model: ChatModel = {
    moderate: () => Promise.resolve(false),
    answer: () =>
      Promise.resolve(
        (async function* answer() {
          yield* chunks
        })(),
      ),
  }
  const store = {
    finishAnswer: async (
      _claims: unknown,
      _id: string,
      _answer: unknown,
      settle: (tx: SqlTransaction) => Promise<unknown>,
    ) => {
      steps.push('answer stored')
      const settled = await settle({} as SqlTransaction)
      return { message: null, settled }
    },
  } as unknown as AssistantStore
  const quota = {
    settle: () => Promise.resolve({ used: 10, reserved: 0 }),
  } as unknown as Quota
  const sink: AnswerSink = {
    send: (event) => {
      steps.push(`sent ${event}`)
      return Promise.resolve()
    },
    gone: false,
    onGone: () => undefined,
  }
  const stream = createAnswerStream({
    sql: {} as Sql,
    model,
    entitlementsForUser: () => Promise.reject(new Error('not asked')),
    bus: {
      publish: () => {
        steps.push('event published')
        return Promise.resolve()
      },
    },
    clock: { now: () => 0 },
    logger: createLogger({ level: 'error', write: () => undefined }),
    settings,
    store,
    quota,
    releaseHold: () => Promise.resolve(),
    announce: (_sender, announced) => {
      steps.push(`usage announced (reserved ${announced.reserved})`)
    },
  })
  await stream.runSend(prepared(), sink)
  return steps
}

describe('an answer as it streams', () => {
  it('announces the hold after the opening and the first token are written, before the end is stored', async () => {
    const steps = await runOnce([chunk('Tides '), chunk('are '), chunk('the moon.', 'stop')])
    const announced = steps.indexOf('usage announced (reserved 300)')
    expect(steps.slice(0, 2)).toEqual(['sent message', 'sent delta'])
    expect(announced).toBeGreaterThan(1)
    expect(announced).toBeLessThan(steps.indexOf('answer stored'))
    // The settled counters follow, once.
    expect(steps.filter((step) => step.startsWith('usage announced'))).toEqual([
      'usage announced (reserved 300)',
      'usage announced (reserved 0)',
    ])
    expect(steps.at(-1)).toBe('sent done')
  })

  it('announces the hold before its settling when the answer brings no text', async () => {
    const steps = await runOnce([chunk('', 'stop')])
    expect(steps.indexOf('usage announced (reserved 300)')).toBeLessThan(
      steps.indexOf('answer stored'),
    )
    expect(steps[0]).toBe('sent message')
  })
})
