import type { z } from 'zod/mini'
import { PASSWORD_MIN_LENGTH } from '@tessera/contracts/auth-limits'
import type * as fieldSchemas from './field-schemas.ts'

type FieldSchemas = typeof fieldSchemas

/**
 * The contracts' schemas, once loaded. They come with zod, so they load when the person first
 * focuses, points at or types into a form (`loadFieldChecks`, called by use-form.ts), not with
 * the page. Until then a check
 * that needs them finds nothing wrong, and a submit waits for them (use-form.ts); if they cannot
 * load, the server's answer still says what is wrong.
 */
let schemas: FieldSchemas | null = null
let loading: Promise<void> | null = null
let settled = false

/** Loads the schemas the checks use (once); never rejects. */
export function loadFieldChecks(): Promise<void> {
  loading ??= import('./field-schemas.ts').then(
    (loaded) => {
      schemas = loaded
      settled = true
    },
    (error: unknown) => {
      settled = true
      console.warn('The form checks could not be loaded; the server checks what is sent', error)
    },
  )
  return loading
}

/** Whether `loadFieldChecks` has finished, loaded or not: a submit may go ahead. */
export const fieldChecksSettled = (): boolean => settled

/** The first message a contracts schema gives for a value, or null when it passes. */
function firstProblem(
  pick: (loaded: FieldSchemas) => z.core.$ZodType,
  value: string,
): string | null {
  if (schemas === null) return null
  return schemas.firstMessage(pick(schemas), value)
}

export const checkEmail = (value: string) =>
  value.trim() === '' ? 'Enter your email address.' : firstProblem((s) => s.emailSchema, value)

export const checkPassword = (value: string) => firstProblem((s) => s.passwordSchema, value)

export const checkNewPassword = (value: string) =>
  value === '' ? 'Choose a password.' : firstProblem((s) => s.newPasswordSchema, value)

export const checkDisplayName = (value: string) => firstProblem((s) => s.displayNameSchema, value)

export const checkWorkspaceName = (value: string) =>
  value.trim() === ''
    ? 'Enter a name for the workspace.'
    : firstProblem((s) => s.workspaceNameSchema, value)

/** Someone else's address, for an invite. */
export const checkInviteEmail = (value: string) =>
  value.trim() === ''
    ? 'Enter the email address to invite.'
    : firstProblem((s) => s.emailSchema, value)

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
