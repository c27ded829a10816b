import { describe, expect, it } from 'vitest'
import {
  conversationPageQuerySchema,
  createConversationBodySchema,
  renameConversationBodySchema,
  sendMessageBodySchema,
} from './assistant.ts'
import {
  changeEmailBodySchema,
  changePasswordBodySchema,
  emailLinkBodySchema,
  signInBodySchema,
  signUpBodySchema,
  updateProfileBodySchema,
} from './auth.ts'
import { registerVersionBodySchema } from './deploy.ts'
import { remoteErrorReportSchema } from './telemetry.ts'
import { PLAIN_TEXT_MESSAGE, isPlainText, plainTextSchema } from './text.ts'

const disallowed = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u000c',
  '\u000e',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udfff',
]

describe('the text rule', () => {
  it('refuses NUL, other C0 controls, DEL and lone surrogates anywhere in a string', () => {
    for (const character of disallowed) {
      expect(isPlainText(`a${character}b`), JSON.stringify(character)).toBe(false)
      expect(isPlainText(character), JSON.stringify(character)).toBe(false)
    }
  })

  it('takes tabs, line breaks, emoji, surrogate pairs and every script', () => {
    expect(isPlainText('line one\r\nline\ttwo\n')).toBe(true)
    expect(isPlainText('Z̸̢̛a̶l̵g̷o̴ 👩🏽‍💻 ﷽ 日本語 \u00a0')).toBe(true)
    expect(isPlainText('')).toBe(true)
  })

  it('reports a refused string with a sentence, at the path of its field', () => {
    const result = plainTextSchema(10).safeParse('a\u0000')
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: [], message: PLAIN_TEXT_MESSAGE }),
    ])
  })

  it('is applied to every string people send in a request schema', () => {
    const nul = 'hello\u0000world'
    const cases: [string, { safeParse(value: unknown): unknown }, unknown, string][] = [
      ['create title', createConversationBodySchema, { title: nul }, 'title'],
      ['rename title', renameConversationBodySchema, { title: nul }, 'title'],
      ['message', sendMessageBodySchema, { content: nul }, 'content'],
      ['search cursor', conversationPageQuerySchema, { cursor: nul }, 'cursor'],
      ['display name', updateProfileBodySchema, { displayName: nul }, 'displayName'],
      [
        'sign-up name',
        signUpBodySchema,
        { email: 'a@example.com', password: 'long enough', displayName: nul },
        'displayName',
      ],
      ['sign-in email', signInBodySchema, { email: `a${nul}@example.com`, password: 'x' }, 'email'],
      ['sign-in password', signInBodySchema, { email: 'a@example.com', password: nul }, 'password'],
      ['new password', changePasswordBodySchema, { password: `${nul}123` }, 'password'],
      ['email link', emailLinkBodySchema, { email: `\u0001a@example.com` }, 'email'],
      ['new email', changeEmailBodySchema, { email: 'a@example.com', next: `/${nul}` }, 'next'],
      [
        'telemetry message',
        remoteErrorReportSchema,
        { remote: 'billing', version: '1.0.0', stage: 'entry', message: nul },
        'message',
      ],
      [
        'build file name',
        registerVersionBodySchema,
        { descriptor: { builtAt: nul }, baseUrl: 'https://cdn.example/billing/1.0.0' },
        'descriptor.builtAt',
      ],
    ]
    for (const [label, schema, value, field] of cases) {
      const result = schema.safeParse(value) as {
        success: boolean
        error?: { issues: { path: PropertyKey[] }[] }
      }
      expect(result.success, label).toBe(false)
      const paths = result.error?.issues.map((issue) => issue.path.map(String).join('.')) ?? []
      expect(paths, label).toContain(field)
    }
  })
})
