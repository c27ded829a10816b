// Test support for attachments: the assistant test app with the Storage stand-in at the BFF's
// SUPABASE_URL (on a port chosen first), and uploads as a browser makes them. Never imported by
// the app.
import { createServer } from 'node:net'
import { ATTACHMENT_NAME_HEADER, attachmentResponseSchema } from '@tessera/contracts'
import type { Attachment } from '@tessera/contracts'
import { expect } from 'vitest'
import { startAssistantTestApp } from './assistant.ts'
import type { AssistantTestApp } from './assistant.ts'
import type { IdentityTestOptions, TestBrowser } from './identity.ts'
import { TEST_ORIGIN } from './app.ts'

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('No port was given.')
  return address.port
}

/** The assistant test app whose BFF stores attachments in its Supabase stand-in. */
export async function startAttachmentsTestApp(
  options: IdentityTestOptions = {},
): Promise<AssistantTestApp> {
  const port = await freePort()
  return startAssistantTestApp({
    ...options,
    supabase: { port, ...options.supabase },
    env: { SUPABASE_URL: `http://127.0.0.1:${port}`, ...options.env },
  })
}

/** Uploads `body` as the file `name` (a header is left out when `name` is null). */
export function upload(
  browser: TestBrowser,
  name: string | null,
  body: Uint8Array | ReadableStream<Uint8Array> | string,
): Promise<Response> {
  return browser.request('/api/assistant/attachments', {
    method: 'POST',
    headers: {
      origin: TEST_ORIGIN,
      'x-tessera-csrf': '1',
      'content-type': 'application/octet-stream',
      ...(name === null ? {} : { [ATTACHMENT_NAME_HEADER]: encodeURIComponent(name) }),
    },
    body: body as RequestInit['body'],
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit)
}

/** Uploads a file that must be taken, and returns what the BFF recorded. */
export async function uploaded(
  browser: TestBrowser,
  name: string,
  body: Uint8Array | string,
): Promise<Attachment> {
  const response = await upload(browser, name, body)
  expect(response.status, await response.clone().text()).toBe(201)
  return attachmentResponseSchema.parse(await response.json()).attachment
}
