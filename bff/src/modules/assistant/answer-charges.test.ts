import { messageListSchema } from '@tessera/contracts'
import type { Sql, SqlStatement, TransactionOptions } from '@tessera/db/sql'
import { MODERATION_TEST_PHRASE } from '@tessera/emulators/openai/moderation'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sseReader } from '../../testing/app.ts'
import {
  deltaText,
  newConversation,
  postMessage,
  readAnswer,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { createNodeFetch } from '../../platform/node-fetch.ts'

/**
 * What a user is charged: exactly the usage of the answers they can keep. The question is
 * stored before the model is asked; the answer and its tokens are stored in one transaction.
 */
let t: AssistantTestApp
/** What happened, in order: the question stored (committed), and the model's request. */
const steps: string[] = []
/** The signals of the model's requests: one per request the BFF made. */
const modelSignals: AbortSignal[] = []

beforeAll(async () => {
  const nodeFetch = createNodeFetch()
  t = await startAssistantTestApp({
    env: {
      ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '3000',
      ASSISTANT_IDLE_TIMEOUT_MS: '2000',
      ASSISTANT_MAX_ANSWER_SECONDS: '1',
    },
    deps: {
      serviceFetch: (input, init) => {
        const url = input instanceof Request ? input.url : String(input)
        if (url.endsWith('/chat/completions')) {
          steps.push('model asked')
          if (init?.signal) modelSignals.push(init.signal)
        }
        return nodeFetch(input, init)
      },
    },
    wrapDb: (db: Sql): Sql => ({
      ...db,
      transaction: async (fn, options) => {
        let inserted = false
        const result = await db.transaction(
          (tx) =>
            fn({
              ...tx,
              query: (text, params) => {
                if (/insert into "assistant_messages"/.test(text)) inserted = true
                return tx.query(text, params)
              },
            }),
          options,
        )
        // Committed: the question is stored.
        if (inserted) steps.push('question stored')
        return result
      },
      transactionOf: <T>(statement: SqlStatement, options?: TransactionOptions) =>
        db.transactionOf<T>(statement, options).then((result) => {
          // Committed: the question is stored.
          if (/insert into "assistant_messages"/.test(statement.text)) steps.push('question stored')
          return result
        }),
    }),
  })
}, databaseSetupTimeout)
afterAll(() => t.finish())

const unique = (text: string) => `${text} [${crypto.randomUUID().slice(0, 8)}]`

/** The user's counted tokens this month, and the usage of every answer stored for them. */
async function ledgerOf(
  userId: string,
): Promise<{ counted: number; stored: number; held: number }> {
  const { rows } = await t.db.query<{ counted: number; stored: number; held: number }>(
    `select
       coalesce((select sum(used_tokens) from assistant_usage where user_id = $1), 0)::int as counted,
       coalesce((select sum(reserved_tokens) from assistant_usage where user_id = $1), 0)::int as held,
       coalesce((select sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0))
                   from assistant_messages where user_id = $1), 0)::int as stored`,
    [userId],
  )
  return rows[0] ?? { counted: -1, stored: -1, held: -1 }
}

async function fresh(label: string): Promise<TestBrowser & { id: string }> {
  return t.user(label)
}

/**
 * Runs `during` while the database refuses writes to `assistant_messages` (`before insert` or
 * `before update`) for which `condition` holds, as a full disk or a lost connection would.
 */
async function whileMessagesRefused(
  event: 'insert' | 'update',
  condition: string,
  during: () => Promise<void>,
): Promise<void> {
  await t.db.exec(`
    create or replace function test_refuse_messages() returns trigger language plpgsql as $$
    begin
      if ${condition} then
        raise exception 'the disk is full';
      end if;
      return new;
    end $$;
    create trigger test_refuse_messages before ${event} on assistant_messages
      for each row execute function test_refuse_messages();`)
  try {
    await during()
  } finally {
    await t.db.exec(
      'drop trigger test_refuse_messages on assistant_messages; drop function test_refuse_messages()',
    )
  }
}

describe('what a send is charged', () => {
  it('stores the question before the model is asked', async () => {
    const ada = await fresh('order')
    const id = await newConversation(ada)
    steps.length = 0
    await sendAndRead(ada, id, unique('What is first?'))
    expect(steps.slice(0, 2)).toEqual(['question stored', 'model asked'])
  })

  it('never asks the model and charges nothing when the question cannot be stored', async () => {
    const cy = await fresh('unstored-question')
    const id = await newConversation(cy)
    modelSignals.length = 0
    await whileMessagesRefused(
      'insert',
      `new.role = 'user' and new.user_id = '${cy.id}'`,
      async () => {
        const response = await postMessage(cy, id, unique('Will this be asked?'))
        expect(response.status).toBeGreaterThanOrEqual(500)
        expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      },
    )
    expect(modelSignals).toEqual([])
    expect(await ledgerOf(cy.id)).toEqual({ counted: 0, stored: 0, held: 0 })
    const listed = messageListSchema.parse(
      await (await cy.get(`/api/assistant/conversations/${id}/messages`)).json(),
    )
    expect(listed.messages).toEqual([])
  })

  it('charges nothing for an answer that cannot be stored, and gives its hold back', async () => {
    const bob = await fresh('unstored')
    const id = await newConversation(bob)
    // The answer's final write fails in the database (as a full disk or a lost connection would).
    await whileMessagesRefused(
      'update',
      `new.status <> 'streaming' and new.user_id = '${bob.id}'`,
      async () => {
        const events = await sendAndRead(bob, id, unique('Will this be kept?'))
        expect(deltaText(events)).not.toBe('')
        const last = events[events.length - 1]
        expect(last?.event).toBe('error')
        expect(last?.data.code).toBe('internal')
        expect(events.find((event) => event.event === 'usage')?.data.totalTokens).toBe(0)
      },
    )
    expect(await ledgerOf(bob.id)).toEqual({ counted: 0, stored: 0, held: 0 })
    const listed = messageListSchema.parse(
      await (await bob.get(`/api/assistant/conversations/${id}/messages`)).json(),
    )
    // The question was kept; the answer's placeholder says it is still being written.
    expect(listed.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
  })

  it('stops an answer at the longest an answer may stream, keeping and counting what came', async () => {
    const cyd = await fresh('capped')
    const id = await newConversation(cyd)
    const content = unique('Tell me a long story')
    t.openai.control.armFault({ type: 'slow', tokensPerSecond: 8, match: content })
    const events = await sendAndRead(cyd, id, content)
    const last = events[events.length - 1]
    expect(last?.event).toBe('error')
    expect(last?.data.code).toBe('upstream_timeout')
    expect(deltaText(events)).not.toBe('')
    const { counted, stored, held } = await ledgerOf(cyd.id)
    expect(held).toBe(0)
    expect(counted).toBeGreaterThan(0)
    expect(counted).toBe(stored)
  })

  it('counts exactly the usage of the answers a user keeps, whatever way each send ended', async () => {
    const dan = await fresh('ledger')
    const id = await newConversation(dan)
    await sendAndRead(dan, id, unique('A plain question'))
    // Refused by moderation: nothing stored, nothing counted.
    expect((await postMessage(dan, id, `Please ${MODERATION_TEST_PHRASE} now`)).status).toBe(422)
    // The model fails before its first token.
    const failing = unique('This one fails')
    t.openai.control.armFault({ type: 'server_error', status: 500, match: failing })
    await sendAndRead(dan, id, failing)
    // Cut off mid-answer.
    const cut = unique('This one is cut')
    t.openai.control.armFault({ type: 'cut', afterTokens: 3, match: cut })
    await sendAndRead(dan, id, cut)
    // Stopped by the person after the first token.
    const stopped = unique('This one is stopped')
    t.openai.control.armFault({ type: 'slow', tokensPerSecond: 20, match: stopped })
    const stopper = new AbortController()
    const response = await postMessage(dan, id, stopped, { signal: stopper.signal })
    const reader = sseReader(response)
    await reader.next((frame) => frame.event === 'delta')
    stopper.abort()
    await reader.closed().catch(() => undefined)
    await expect.poll(async () => (await ledgerOf(dan.id)).held, { timeout: 10_000 }).toBe(0)
    await readAnswer(await postMessage(dan, id, unique('And one more')))

    const { counted, stored, held } = await ledgerOf(dan.id)
    expect(held).toBe(0)
    expect(counted).toBeGreaterThan(0)
    expect(counted).toBe(stored)
  })
})
