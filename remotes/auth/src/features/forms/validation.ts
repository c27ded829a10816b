import type { z } from 'zod'
import {
  displayNameSchema,
  emailSchema,
  newPasswordSchema,
  passwordSchema,
  PASSWORD_MIN_LENGTH,
} from '@tessera/contracts/auth'

/** The first message a contracts schema gives for a value, or null when it passes. */
function firstProblem(schema: z.ZodType, value: string): string | null {
  const parsed = schema.safeParse(value)
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'This is not valid.')
}

export const checkEmail = (value: string) =>
  value.trim() === '' ? 'Enter your email address.' : firstProblem(emailSchema, value)

export const checkPassword = (value: string) => firstProblem(passwordSchema, value)

export const checkNewPassword = (value: string) =>
  value === '' ? 'Choose a password.' : firstProblem(newPasswordSchema, value)

export const checkDisplayName = (value: string) => firstProblem(displayNameSchema, value)

/** An optional display name: empty is fine, anything else follows the schema. */
export const checkOptionalDisplayName = (value: string) =>
  value.trim() === '' ? null : checkDisplayName(value)

/**
 * The confirmation of a new password. While the person is still typing it (a prefix of the
 * password) nothing is wrong yet; a character that differs is said at once.
 */
export function checkConfirmation(
  value: string,
  password: string,
  phase: 'typing' | 'submit',
): string | null {
  if (value === password)
    return value === '' && phase === 'submit' ? 'Type the password again.' : null
  if (phase === 'typing' && password.startsWith(value)) return null
  return 'The two passwords do not match.'
}

export type PasswordStrength = 'too-short' | 'weak' | 'fair' | 'strong'

/**
 * A rough strength for the hint under a new-password field: length counts most, then variety.
 * Advice only; the server decides what it accepts.
 */
export function passwordStrength(value: string): { strength: PasswordStrength; hint: string } {
  const length = [...value].length
  if (length < PASSWORD_MIN_LENGTH) {
    const missing = PASSWORD_MIN_LENGTH - length
    return {
      strength: 'too-short',
      hint:
        length === 0
          ? `Use at least ${PASSWORD_MIN_LENGTH} characters.`
          : `${missing} more character${missing === 1 ? '' : 's'} needed.`,
    }
  }
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((kind) => kind.test(value)).length
  const repeated = /^(.)\1*$/.test(value)
  if (repeated || (length < 12 && kinds <= 1)) {
    return { strength: 'weak', hint: 'Weak: make it longer, or mix letters, numbers and symbols.' }
  }
  if (length >= 16 || (length >= 12 && kinds >= 3)) {
    return { strength: 'strong', hint: 'Strong password.' }
  }
  return { strength: 'fair', hint: 'Fair: a few more characters would make it stronger.' }
}
