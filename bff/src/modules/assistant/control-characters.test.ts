// Issue 14, "Text is text": NUL in a title answered 500 (PostgreSQL refuses 0x00 in text), and NUL
// in a message reached the model and was charged for an answer that could not be stored.
import { errorBodySchema, usageSchema } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import {
  eventOrder,
  newConversation,
  postMessage,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'

let t: AssistantTestApp
beforeAll(async () => {
  t = await startAssistantTestApp()
}, databaseSetupTimeout)
afterAll(() => t.finish())

/** Checks a 422 `validation_failed` whose issues name `field`. */
async function expectRefusedField(response: Response, field: string) {
  expect(response.status, await response.clone().text()).toBe(422)
  const body = errorBodySchema.parse(await response.json())
  expect(body.error.code).toBe('validation_failed')
  expect(body.error.details?.issues).toEqual([
    { path: field, message: expect.stringMatching(/control characters/) as unknown },
  ])
}

async function usedTokens(browser: TestBrowser) {
  const response = await browser.get('/api/assistant/usage')
  expect(response.status).toBe(200)
  return usageSchema.parse(await response.json())
}

describe('control characters in assistant requests', () => {
  it('refuses a conversation title with NUL as a field error, not a 500', async () => {
    const ada = await t.user('nul-title')
    const created = await ada.send('POST', '/api/assistant/conversations', {
      title: 'plans\u0000for today',
    })
    await expectRefusedField(created, 'title')
    const id = await newConversation(ada, 'A fine title')
    const renamed = await ada.send('PATCH', `/api/assistant/conversations/${id}`, {
      title: 'renamed\u0000',
    })
    await expectRefusedField(renamed, 'title')
    const lone = await ada.send('PATCH', `/api/assistant/conversations/${id}`, {
      title: 'half \ud800 a pair',
    })
    await expectRefusedField(lone, 'title')
  })

  it('refuses a message with NUL before the model is called, charging nothing', async () => {
    const ada = await t.user('nul-message')
    const id = await newConversation(ada)
    expect(eventOrder(await sendAndRead(ada, id, 'Say hello.'))).toContain('done')
    const before = await usedTokens(ada)
    expect(before.used).toBeGreaterThan(0)
    const modelCallsBefore = t.openai.control.requests().length

    await expectRefusedField(await postMessage(ada, id, 'hello\u0000world'), 'content')
    await expectRefusedField(await postMessage(ada, id, 'hello\u007fworld'), 'content')

    expect(t.openai.control.requests()).toHaveLength(modelCallsBefore)
    expect(await usedTokens(ada)).toEqual(before)
    const messages = await ada.get(`/api/assistant/conversations/${id}/messages`)
    expect(((await messages.json()) as { messages: unknown[] }).messages).toHaveLength(2)
  })

  it('keeps tabs and line breaks in a message as text', async () => {
    const ada = await t.user('tabs')
    const id = await newConversation(ada, 'Lines\tand tabs')
    expect(eventOrder(await sendAndRead(ada, id, 'one\r\ntwo\tthree'))).toContain('done')
  })
})
