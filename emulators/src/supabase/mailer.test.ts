import { describe, expect, it } from 'vitest'
import { defaultEmailLinkTemplate } from './config.ts'
import { renderLinkTemplate } from './mailer.ts'

const values = {
  siteUrl: 'http://localhost:8787',
  tokenHash: 'abc123',
  type: 'recovery' as const,
  redirectTo: 'http://localhost:8787/reset?from=mail',
  token: '123456',
  email: 'a+b@example.test',
  confirmationUrl: 'http://127.0.0.1:54321/auth/v1/verify?token=abc123&type=recovery',
}

describe('renderLinkTemplate', () => {
  it('points the default link at the app with the token hash, type and encoded next', () => {
    expect(renderLinkTemplate(defaultEmailLinkTemplate, values)).toBe(
      'http://localhost:8787/auth/confirm?token_hash=abc123&type=recovery&next=http%3A%2F%2Flocalhost%3A8787%2Freset%3Ffrom%3Dmail',
    )
  })

  it('fills every Supabase placeholder and leaves unknown ones visible', () => {
    expect(renderLinkTemplate('{{ .ConfirmationURL }}', values)).toBe(values.confirmationUrl)
    expect(
      renderLinkTemplate('{{.SiteURL}}/x?e={{ .Email }}&t={{ .Token }}&u={{ .Unknown }}', values),
    ).toBe('http://localhost:8787/x?e=a%2Bb%40example.test&t=123456&u={{ .Unknown }}')
  })
})
