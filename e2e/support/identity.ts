import { randomUUID } from 'node:crypto'
import { expect, type APIRequestContext, type BrowserContext } from '@playwright/test'
import { e2eStack } from './stack.ts'

export const password = 'a long and unguessable passphrase'

/** An address no other test uses, so journeys can run in parallel against one stack. */
export const uniqueEmail = (what: string): string =>
  `${what}-${randomUUID().slice(0, 8)}@example.com`

interface MailboxMessage {
  id: string
  to: string
  subject: string
  text: string
  createdAt?: string
}

/** The newest email to `to` whose subject matches, waiting for it to arrive. */
export async function latestMail(
  request: APIRequestContext,
  to: string,
  subject: RegExp,
): Promise<MailboxMessage & { link: string }> {
  let found: MailboxMessage | undefined
  await expect
    .poll(async () => {
      const response = await request.get(
        `${e2eStack.mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`,
      )
      const { messages } = (await response.json()) as { messages: MailboxMessage[] }
      found = messages.find((m) => subject.test(m.subject))
      return found !== undefined
    })
    .toBe(true)
  const link = /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(found!.text)?.[0]
  expect(link, 'the email carries a confirmation link').toBeTruthy()
  return { ...found!, link: link! }
}

const stateChanging = { 'x-tessera-csrf': '1', origin: e2eStack.appUrl }

/**
 * A confirmed, signed-in account for journeys that are about something else: the same API calls
 * the auth pages make, through the browser context so it holds the session cookie.
 */
export async function signedInAccount(
  context: BrowserContext,
  what: string,
  displayName = 'Ada Lovelace',
) {
  const email = uniqueEmail(what)
  const request = context.request
  const signUp = await request.post('/api/auth/sign-up', {
    headers: stateChanging,
    data: { email, password, displayName },
  })
  expect(signUp.status(), await signUp.text()).toBeLessThan(300)
  const mail = await latestMail(request, email, /confirm/i)
  const tokenHash = new URL(mail.link).searchParams.get('token_hash')
  const confirm = await request.post('/api/auth/confirm', {
    headers: stateChanging,
    data: { tokenHash, type: 'signup' },
  })
  expect(confirm.status(), await confirm.text()).toBeLessThan(300)
  return { email, displayName }
}
