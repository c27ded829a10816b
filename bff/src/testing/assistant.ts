// Test support for the assistant's routes: the identity test app (PGlite, the Auth stand-in) with
// the OpenAI stand-in on a free port behind the real `openai` SDK, over the HTTP client the Node
// entry gives it (node-fetch.ts). Never imported by the app.
import { chatStreamEventSchemas } from '@tessera/contracts'
import type { ChatStreamEventName } from '@tessera/contracts'
import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import type { RunningOpenAiEmulator } from '@tessera/emulators/openai/node'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { expect } from 'vitest'
import { startIdentityTestApp } from './identity.ts'
import type { IdentityTestApp, IdentityTestOptions, TestBrowser } from './identity.ts'
import { createNodeFetch } from '../platform/node-fetch.ts'
import { csrfHeaders, sseReader } from './app.ts'

export interface AssistantTestApp extends IdentityTestApp {
  openai: RunningOpenAiEmulator
  /** A new confirmed, signed-in user. */
  user(label?: string): Promise<TestBrowser & { id: string }>
}

/** One parsed event of a send's answer stream. */
export interface AnswerEvent {
  event: ChatStreamEventName
  data: Record<string, unknown>
}

/** The identity test app, talking to an OpenAI stand-in of its own. */
export async function startAssistantTestApp(
  options: IdentityTestOptions & { tokensPerSecond?: number } = {},
): Promise<AssistantTestApp> {
  const openai = await startOpenAiEmulator({
    port: 0,
    tokensPerSecond: options.tokensPerSecond ?? Number.POSITIVE_INFINITY,
  })
  let t: IdentityTestApp
  try {
    t = await startIdentityTestApp({
      ...options,
      deps: { serviceFetch: createNodeFetch(), ...options.deps },
      env: {
        OPENAI_BASE_URL: `${openai.url}/v1`,
        // Tests send far more than a person would; the limit has its own test.
        ASSISTANT_RATE_LIMIT: '100000',
        ...options.env,
      },
    })
  } catch (error) {
    await openai.close()
    throw error
  }
  return {
    ...t,
    openai,
    async user(label = 'chat') {
      const browser = await t.signUp(uniqueEmail(label))
      const me = (await (await browser.get('/api/me')).json()) as { user: { id: string } }
      return Object.assign(browser, { id: me.user.id })
    },
    async finish() {
      try {
        await t.finish()
      } finally {
        await openai.close()
      }
    },
  }
}

/** Creates a conversation and returns its id. */
export async function newConversation(browser: TestBrowser, title?: string): Promise<string> {
  const response = await browser.send(
    'POST',
    '/api/assistant/conversations',
    title === undefined ? {} : { title },
  )
  expect(response.status, await response.clone().text()).toBe(201)
  return ((await response.json()) as { conversation: { id: string } }).conversation.id
}

/** Sends a message; the response is the SSE stream (or a JSON refusal). */
export function postMessage(
  browser: TestBrowser,
  conversationId: string,
  content: string,
  init: { signal?: AbortSignal } = {},
): Promise<Response> {
  return browser.request(`/api/assistant/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: csrfHeaders,
    body: JSON.stringify({ content }),
    ...init,
  })
}

/** Parses every frame with the contract's schema for its event name (failing on anything else). */
export function parseEvents(frames: { event: string; data: string }[]): AnswerEvent[] {
  return frames.map((frame) => {
    const schema = chatStreamEventSchemas[frame.event as ChatStreamEventName] as
      (typeof chatStreamEventSchemas)[ChatStreamEventName] | undefined
    if (schema === undefined) throw new Error(`An unknown SSE event: ${frame.event}`)
    return {
      event: frame.event as ChatStreamEventName,
      data: schema.parse(JSON.parse(frame.data)) as Record<string, unknown>,
    }
  })
}

/** Reads a whole answer stream and checks it against the contract. */
export async function readAnswer(response: Response, timeoutMs = 10_000): Promise<AnswerEvent[]> {
  expect(response.status, response.status === 200 ? '' : await response.clone().text()).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const reader = sseReader(response)
  await reader.closed(timeoutMs)
  return parseEvents(reader.frames)
}

/** Sends a message and reads its whole answer. */
export async function sendAndRead(
  browser: TestBrowser,
  conversationId: string,
  content: string,
): Promise<AnswerEvent[]> {
  return readAnswer(await postMessage(browser, conversationId, content))
}

/** The names of the events, in order, with runs of deltas folded into one `delta*`. */
export function eventOrder(events: AnswerEvent[]): string[] {
  const names: string[] = []
  for (const { event } of events) {
    if (event === 'delta' && names[names.length - 1] === 'delta*') continue
    names.push(event === 'delta' ? 'delta*' : event)
  }
  return names
}

/** The text the deltas carried. */
export function deltaText(events: AnswerEvent[]): string {
  return events
    .filter((event) => event.event === 'delta')
    .map((event) => String(event.data.text))
    .join('')
}
