import { describe, expect, it } from 'vitest'
import { hashSessionToken, isSessionToken, newSessionToken } from './session-token.ts'

describe('session tokens', () => {
  it('are 32 random bytes in base64url, different every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, newSessionToken))
    expect(tokens.size).toBe(100)
    for (const token of tokens) expect(isSessionToken(token)).toBe(true)
  })

  it('are stored as their sha256, never as themselves', async () => {
    const token = newSessionToken()
    const hash = await hashSessionToken(token)
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(hash).not.toBe(token)
    expect(await hashSessionToken(token)).toBe(hash)
    // sha256("abc"), base64url
    expect(await hashSessionToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0')
  })

  it('refuses anything else as a cookie value', () => {
    for (const value of ['', 'short', 'A'.repeat(42), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`])
      expect(isSessionToken(value)).toBe(false)
  })
})
