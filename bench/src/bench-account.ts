/**
 * A confirmed account on a bench stack, signed in through the BFF as a person would be (sign-up,
 * the link in the mailbox, confirm), so a benchmark can load pages that need a signed-in user.
 */

export interface SessionCookie {
  name: string
  value: string
}

const PASSWORD = 'a long benchmark passphrase'

/**
 * Signs up and confirms a new account; returns its session cookie, or null when the stack offers
 * no sign-up (a platform without accounts has no page that needs one).
 */
export async function signInBenchAccount(stack: {
  appUrl: string
  mailboxUrl: string
}): Promise<SessionCookie | null> {
  const headers = {
    origin: stack.appUrl,
    'x-tessera-csrf': '1',
    'content-type': 'application/json',
  }
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const signUp = await fetch(`${stack.appUrl}/api/auth/sign-up`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, password: PASSWORD, displayName: 'Bench' }),
  })
  if (signUp.status === 404) return null
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`)

  let link: string | undefined
  const deadline = Date.now() + 10_000
  while (!link && Date.now() < deadline) {
    const inbox = await fetch(`${stack.mailboxUrl}/api/messages?to=${encodeURIComponent(email)}`)
    const mail = (await inbox.json()) as { messages: Array<{ text: string }> }
    link = /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(mail.messages[0]?.text ?? '')?.[0]
    if (!link) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (!link) throw new Error(`no confirmation mail reached ${email} within 10 s`)

  const confirm = await fetch(`${stack.appUrl}/api/auth/confirm`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      tokenHash: new URL(link).searchParams.get('token_hash'),
      type: 'signup',
    }),
  })
  if (!confirm.ok) throw new Error(`confirming the account failed: ${confirm.status}`)
  const pair = (confirm.headers.getSetCookie()[0] ?? '').split(';')[0] ?? ''
  const split = pair.indexOf('=')
  if (split <= 0) throw new Error('confirming the account set no session cookie')
  return { name: pair.slice(0, split), value: pair.slice(split + 1) }
}
