/**
 * Names in Storage: bucket ids and object keys. The character sets are hosted Storage's
 * (`isValidBucketName`, `isValidKey`); the stand-in is stricter on keys, refusing what could climb
 * out of a folder or hide a second path in one (`.`/`..` segments, a leading `/`, empty segments).
 */
import { invalidBucketName, invalidKey } from './storage-errors.ts'

/** Hosted Storage's safe characters: word characters and ``!-.*'() &$@=;:+,?``. */
const bucketCharacters = /^[\w!\-.*'() &$@=;:+,?]+$/
const keyCharacters = /^[\w/!\-.*'() &$@=;:+,?]+$/

/** Hosted Storage's key length limit (bytes of UTF-8; the character set keeps it ASCII). */
export const maxKeyLength = 1024

/** Throws Storage's `InvalidBucketName` unless `id` is a bucket id hosted Storage accepts. */
export function checkBucketId(id: string): string {
  if (id.length === 0 || id.length > 100)
    throw invalidBucketName('a bucket id has 1 to 100 characters')
  if (id.trim() !== id) throw invalidBucketName('no leading or trailing spaces')
  if (!bucketCharacters.test(id)) {
    throw invalidBucketName(
      "letters, digits, _ and the characters !-.*'() &$@=;:+,? only (no slashes)",
    )
  }
  return id
}

/** The reason an object key is refused, or null when it is fine. */
export function objectKeyProblem(key: string): string | null {
  if (key === '') return 'an object path is required'
  if (key.length > maxKeyLength) return `an object path has at most ${maxKeyLength} characters`
  if (key.startsWith('/')) return 'the path must be relative (no leading /)'
  if (key.includes('\\')) return 'backslashes are not allowed'
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'control characters are not allowed'
  const segments = key.split('/')
  if (segments.some((segment) => segment === '.' || segment === '..'))
    return 'the path must not contain . or .. segments'
  if (segments.some((segment) => segment === '')) return 'the path must not contain empty segments'
  if (!keyCharacters.test(key)) {
    return "letters, digits, _ and the characters /!-.*'() &$@=;:+,? only"
  }
  return null
}

/** Throws Storage's `InvalidKey` unless `key` is a safe object key. */
export function checkObjectKey(key: string): string {
  const problem = objectKeyProblem(key)
  if (problem !== null) throw invalidKey(key, problem)
  return key
}

/**
 * Decodes the key part of a request path (`a/b%20c.js`). `%2F` becomes `/` before the checks, so an
 * encoded `..%2F` is refused like a literal one.
 */
export function decodeObjectKey(raw: string): string {
  let key: string
  try {
    key = decodeURIComponent(raw)
  } catch {
    // A malformed escape cannot name an object.
    throw invalidKey(raw, 'malformed percent-encoding')
  }
  return checkObjectKey(key)
}

/** Decodes and checks a bucket id taken from a request path. */
export function decodeBucketId(raw: string): string {
  let id: string
  try {
    id = decodeURIComponent(raw)
  } catch {
    throw invalidBucketName('malformed percent-encoding')
  }
  return checkBucketId(id)
}
