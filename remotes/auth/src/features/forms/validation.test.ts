import { describe, expect, it, vi } from 'vitest'
import {
  checkConfirmation,
  checkDisplayName,
  checkEmail,
  checkNewPassword,
  checkOptionalDisplayName,
  passwordStrength,
} from './validation.ts'

describe('form checks', () => {
  it('asks for an email, then for a valid one, and accepts one with spaces around it', () => {
    expect(checkEmail('')).toBe('Enter your email address.')
    expect(checkEmail('ada@')).toMatch(/valid email address/)
    expect(checkEmail('  Ada@Example.com ')).toBeNull()
  })

  it('wants new passwords of at least eight characters and at most 72 bytes', () => {
    expect(checkNewPassword('')).toBe('Choose a password.')
    expect(checkNewPassword('short')).toMatch(/at least 8/)
    expect(checkNewPassword('long enough')).toBeNull()
    expect(checkNewPassword('é'.repeat(40))).toMatch(/72 bytes/)
  })

  it('says nothing about a confirmation still being typed, and at once about a wrong character', () => {
    expect(checkConfirmation('corr', 'correct horse', 'typing')).toBeNull()
    expect(checkConfirmation('corx', 'correct horse', 'typing')).toBe(
      'The two passwords do not match.',
    )
    expect(checkConfirmation('corr', 'correct horse', 'submit')).toBe(
      'The two passwords do not match.',
    )
    expect(checkConfirmation('correct horse', 'correct horse', 'submit')).toBeNull()
  })

  it('lets the sign-up display name be empty but not the profile one', () => {
    expect(checkOptionalDisplayName('   ')).toBeNull()
    expect(checkDisplayName('   ')).toBe('Enter a display name.')
    expect(checkDisplayName('Ada\u202eecalevoL')).toMatch(/control characters/)
  })
})

describe('passwordStrength', () => {
  it('counts the characters still needed, then grades length and variety', () => {
    expect(passwordStrength('')).toMatchObject({
      strength: 'too-short',
      hint: 'Use at least 8 characters.',
    })
    expect(passwordStrength('abcdefg').hint).toBe('1 more character needed.')
    expect(passwordStrength('aaaaaaaaaaaa').strength).toBe('weak')
    expect(passwordStrength('abcdefgh').strength).toBe('weak')
    expect(passwordStrength('abcdef12').strength).toBe('fair')
    expect(passwordStrength('Abcdef12!xyz').strength).toBe('strong')
    expect(passwordStrength('correct horse battery').strength).toBe('strong')
  })
})

describe('the checks’ schemas', () => {
  it('load after the page (zod stays out of its first chunk), finding nothing wrong until then', async () => {
    vi.resetModules()
    const fresh = await import('./validation.ts')
    expect(fresh.fieldChecksSettled()).toBe(false)
    expect(fresh.checkEmail('ada@')).toBeNull()
    expect(fresh.checkEmail('')).toBe('Enter your email address.')
    expect(fresh.passwordStrength('abc').hint).toBe('5 more characters needed.')
    await fresh.loadFieldChecks()
    expect(fresh.fieldChecksSettled()).toBe(true)
    expect(fresh.checkEmail('ada@')).toMatch(/valid email address/)
  })
})
