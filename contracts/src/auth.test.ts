import { describe, expect, it } from 'vitest'
import {
  changePasswordBodySchema,
  confirmBodySchema,
  displayNameSchema,
  emailSchema,
  meResponseSchema,
  newPasswordSchema,
  nextPathSchema,
  signInBodySchema,
  signOutBodySchema,
} from './auth.ts'
import { entitlementsOf } from './plans.ts'

const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message

describe('auth payload schemas', () => {
  it('trims and lowercases an email address, and says what is wrong with a bad one', () => {
    expect(emailSchema.parse('  Ada@Example.TEST ')).toBe('ada@example.test')
    expect(messageOf(emailSchema.safeParse('ada'))).toBe(
      'Enter a valid email address, like name@example.com.',
    )
    expect(messageOf(emailSchema.safeParse(undefined))).toBe('Enter your email address.')
    expect(emailSchema.safeParse(`${'a'.repeat(250)}@example.com`).success).toBe(false)
  })

  it('asks a new password for 8 characters and at most 72 bytes, and any password for one', () => {
    expect(messageOf(newPasswordSchema.safeParse('seven77'))).toBe(
      'Choose a password of at least 8 characters.',
    )
    expect(newPasswordSchema.safeParse('eight888').success).toBe(true)
    // 24 three-byte characters are 72 bytes; one more is too many.
    expect(newPasswordSchema.safeParse('€'.repeat(24)).success).toBe(true)
    expect(newPasswordSchema.safeParse('€'.repeat(25)).success).toBe(false)
    expect(signInBodySchema.safeParse({ email: 'a@example.com', password: 'x' }).success).toBe(true)
    expect(newPasswordSchema.safeParse('lone \ud800 half').success).toBe(false)
  })

  it('takes a display name of 1 to 80 printable characters, emoji included', () => {
    expect(displayNameSchema.parse('  Ada 👩🏽‍💻 ')).toBe('Ada 👩🏽‍💻')
    for (const bad of ['', '   ', 'x'.repeat(81), 'a\u0000b', 'new\nline', 'rtl\u202e', '\udc00'])
      expect(displayNameSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false)
  })

  it('accepts a return path on this site only', () => {
    expect(nextPathSchema.safeParse('/billing?plan=pro').success).toBe(true)
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      'billing',
      '/a b',
    ])
      expect(nextPathSchema.safeParse(bad).success, bad).toBe(false)
  })

  it('refuses unknown fields and link types, and defaults sign-out to this device', () => {
    expect(
      signInBodySchema.safeParse({ email: 'a@b.co', password: 'x', admin: true }).success,
    ).toBe(false)
    expect(confirmBodySchema.safeParse({ tokenHash: 'abc', type: 'invite' }).success).toBe(false)
    expect(confirmBodySchema.safeParse({ tokenHash: 'a/b', type: 'signup' }).success).toBe(false)
    expect(signOutBodySchema.parse({})).toEqual({ scope: 'local' })
    expect(changePasswordBodySchema.safeParse({ password: 'new password' }).success).toBe(true)
  })

  it('reads GET /api/me both signed out and signed in', () => {
    expect(meResponseSchema.parse({ user: null })).toEqual({ user: null })
    const signedIn = {
      user: {
        id: 'u',
        email: 'a@example.com',
        displayName: null,
        emailConfirmedAt: null,
        pendingEmail: null,
        createdAt: '2026-01-01T00:00:00Z',
        lastSignInAt: null,
      },
      profile: { displayName: null, createdAt: 'x', updatedAt: 'x' },
      session: { id: 's', recovery: false, createdAt: 'x' },
      entitlements: entitlementsOf(null),
    }
    expect(meResponseSchema.parse(signedIn)).toEqual(signedIn)
  })
})
