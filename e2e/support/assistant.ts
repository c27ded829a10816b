import { randomUUID } from 'node:crypto'
import { expect, type Locator, type Page } from '@playwright/test'
import { e2eStack } from './stack.ts'

/** A fault of the OpenAI stand-in (emulators/src/openai/README.md, `/_emulator/faults`). */
export type OpenAiFault =
  | { type: 'rate_limit'; retryAfterMs?: number }
  | { type: 'server_error'; status?: number }
  | { type: 'stall'; ms?: number }
  | { type: 'cut'; afterTokens: number }
  | { type: 'slow'; tokensPerSecond: number }

/**
 * Arms a fault for requests whose last user message contains `match`: journeys run in parallel
 * against one stand-in, so each scopes its faults to a marker only its own messages carry.
 */
export async function armFault(
  fault: OpenAiFault & {
    match: string
    count?: number
    endpoint?: 'chat.completions' | 'moderations'
  },
): Promise<void> {
  const response = await fetch(`${e2eStack.openaiUrl}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  })
  expect(
    response.ok,
    `arming ${fault.type} answered ${response.status}: ${await response.text()}`,
  ).toBe(true)
}

interface LoggedRequest {
  path: string
  model?: string
  outcome: 'in_progress' | 'completed' | 'aborted' | 'cut' | 'rejected'
  completionTokens: number
  plannedCompletionTokens: number
}

/** The stand-in's log of chat completions whose last user message contains `match`. */
export async function modelRequests(match: string): Promise<LoggedRequest[]> {
  const response = await fetch(
    `${e2eStack.openaiUrl}/_emulator/requests?match=${encodeURIComponent(match)}`,
  )
  expect(response.ok).toBe(true)
  const body = (await response.json()) as { requests: LoggedRequest[] }
  // Moderation requests carry the same text; only the answers matter here.
  return body.requests.filter((request) => request.path === '/v1/chat/completions')
}

/** A word no other journey's messages contain. */
export const marker = (): string => `m${randomUUID().slice(0, 8)}`

/** The assistant page's parts, found as a person finds them. */
export function assistantPage(page: Page) {
  const composer = page.getByRole('textbox', { name: 'Message to the assistant' })
  const thread = page.getByRole('region', { name: 'Messages' })
  const answers = thread.getByRole('article', { name: 'The assistant answered' })
  return {
    composer,
    thread,
    answers,
    lastAnswer: (): Locator => answers.last(),
    send: page.getByRole('button', { name: 'Send' }),
    stop: page.getByRole('button', { name: 'Stop' }),
    alert: thread.getByRole('alert'),
    /** Writes a message and sends it with Enter. */
    async ask(text: string): Promise<void> {
      await composer.fill(text)
      await composer.press('Enter')
    },
    /** Waits until no answer is streaming (Send is back). */
    async settled(): Promise<void> {
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible({ timeout: 30_000 })
    },
  }
}

/** The messages of a conversation as the BFF stores them (for waiting on what it saved). */
export async function storedMessages(
  page: Page,
  conversationId: string,
): Promise<Array<{ role: string; status: string; content: string }>> {
  const response = await page.request.get(`/api/assistant/conversations/${conversationId}/messages`)
  expect(response.status(), await response.text()).toBe(200)
  return (
    (await response.json()) as {
      messages: Array<{ role: string; status: string; content: string }>
    }
  ).messages
}

/** The id in the address of an open conversation. */
export function conversationIdIn(page: Page): string {
  const id = /\/assistant\/conversations\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)?.[1]
  expect(id, `a conversation id in ${page.url()}`).toBeTruthy()
  return id!
}
