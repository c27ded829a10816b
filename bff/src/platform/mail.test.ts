import { describe, expect, it } from 'vitest'
import { createResendMail } from './mail.ts'

const message = {
  to: 'ada@example.test',
  subject: 'Hello',
  text: 'Hi',
  html: '<p>Hi</p>',
  idempotencyKey: 'workspace-invite/1/abc',
}

describe('the mail port (Resend’s API)', () => {
  it('posts the email to /emails with the bearer key and the idempotency key', async () => {
    const calls: Request[] = []
    const mail = createResendMail({
      apiUrl: 'http://mail.test/',
      apiKey: 're_key',
      from: 'Tessera <no-reply@tessera.test>',
      fetch: async (input, init) => {
        calls.push(new Request(input, init))
        return Response.json({ id: 'email-1' })
      },
    })
    expect(await mail.send(message)).toEqual({ sent: true, id: 'email-1' })
    const request = calls[0]
    expect(request?.url).toBe('http://mail.test/emails')
    expect(request?.headers.get('authorization')).toBe('Bearer re_key')
    expect(request?.headers.get('idempotency-key')).toBe('workspace-invite/1/abc')
    expect(await request?.json()).toEqual({
      from: 'Tessera <no-reply@tessera.test>',
      to: ['ada@example.test'],
      subject: 'Hello',
      text: 'Hi',
      html: '<p>Hi</p>',
    })
  })

  it('answers a refusal or an unreachable service as not sent, without throwing', async () => {
    const refused = createResendMail({
      apiUrl: 'http://mail.test',
      apiKey: 'k',
      from: 'f <f@x.test>',
      fetch: async () =>
        Response.json(
          { statusCode: 403, name: 'invalid_api_key', message: 'API key is invalid.' },
          { status: 403 },
        ),
    })
    expect(await refused.send(message)).toEqual({
      sent: false,
      reason: 'the mail API answered 403: API key is invalid.',
    })
    const down = createResendMail({
      apiUrl: 'http://mail.test',
      apiKey: 'k',
      from: 'f <f@x.test>',
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    })
    expect(await down.send(message)).toEqual({ sent: false, reason: 'the mail API is unreachable' })
  })
})
