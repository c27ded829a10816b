/**
 * The BFF's own email (invites): one port, spoken as Resend's HTTP API — `POST {url}/emails` with
 * `Authorization: Bearer <key>`, a JSON body `{ from, to: [...], subject, text, html }` and an
 * `Idempotency-Key`, so a retried send goes out once. Locally the Supabase stand-in's mailbox
 * answers the same API, and the emails land beside the auth ones.
 */

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
  /** Same key, same email: the service sends it once (Resend keeps keys for 24 hours). */
  idempotencyKey: string
}

/** Whether the service took the email; `reason` says why not, without the message's content. */
export type MailResult = { sent: true; id: string } | { sent: false; reason: string }

export interface MailSender {
  /** Never throws: a failure is the answer (the caller keeps what it stored and says so). */
  send(message: MailMessage): Promise<MailResult>
}

export interface ResendMailOptions {
  apiUrl: string
  apiKey: string
  from: string
  /** How long one send may take (ms). */
  timeoutMs?: number
  fetch?: typeof fetch
}

/** A sender for Resend's API (or the local mailbox, which speaks it). */
export function createResendMail(options: ResendMailOptions): MailSender {
  const send = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  return {
    async send(message) {
      try {
        const response = await send(`${options.apiUrl.replace(/\/+$/, '')}/emails`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': message.idempotencyKey,
          },
          body: JSON.stringify({
            from: options.from,
            to: [message.to],
            subject: message.subject,
            text: message.text,
            html: message.html,
          }),
          signal: AbortSignal.timeout(timeoutMs),
        })
        const body = (await response.json().catch(() => null)) as {
          id?: unknown
          message?: unknown
        } | null
        if (!response.ok) {
          const detail = typeof body?.message === 'string' ? `: ${body.message.slice(0, 200)}` : ''
          return { sent: false, reason: `the mail API answered ${response.status}${detail}` }
        }
        return { sent: true, id: typeof body?.id === 'string' ? body.id : '' }
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error'
        return {
          sent: false,
          reason:
            name === 'TimeoutError' ? 'the mail API timed out' : 'the mail API is unreachable',
        }
      }
    },
  }
}
