import { z } from 'zod/mini'

// With the `u` flag a well-formed surrogate pair is one code point, so the class of surrogates
// matches lone halves only: they cannot be encoded as UTF-8, so Postgres and Auth would fail.
// C0 controls other than tab, line feed and carriage return, and DEL, are never text a person
// meant to send; PostgreSQL refuses NUL in `text` and `jsonb` outright.
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const disallowedCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udfff]/u

/** The sentence of the issue a string breaking the text rule gets (its path names the field). */
export const PLAIN_TEXT_MESSAGE =
  'This contains a character that cannot be used (a control character or a broken one).'

/**
 * Whether a string is text by the one rule for everything people send: no C0 control character
 * except tab, line feed and carriage return, no DEL, no lone UTF-16 surrogate.
 */
export function isPlainText(value: string): boolean {
  return !disallowedCharacter.test(value)
}

/**
 * The text rule as a zod check, for every user-supplied string of a request schema:
 * `z.string().check(z.trim(), z.maxLength(80), plainText())`. A string breaking it is refused, never stripped
 * (docs/errors.md, "Text is text").
 */
export function plainText(message: string = PLAIN_TEXT_MESSAGE) {
  return z.refine<string>(isPlainText, { error: message })
}

/** A string that is text and at most `max` characters long (for free-form fields). */
export function plainTextSchema(max: number) {
  return z.string().check(z.maxLength(max), plainText())
}

/**
 * Whether every string in a parsed JSON value (keys included) is text by the rule: for payloads
 * read whole rather than field by field (a signed webhook event).
 */
export function isPlainJson(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'string') {
      if (!isPlainText(next)) return false
    } else if (Array.isArray(next)) pending.push(...(next as unknown[]))
    else if (next !== null && typeof next === 'object') {
      for (const [key, child] of Object.entries(next)) {
        if (!isPlainText(key)) return false
        pending.push(child)
      }
    }
  }
  return true
}
