/**
 * Where published remote files go. A driver stores a file under a relative path
 * (`billing/1.1.0/assets/remoteEntry.js`) and says at which public URL it is served. Paths are
 * immutable: `put` accepts the same bytes again but never replaces different ones.
 */
import { createHash } from 'node:crypto'

export interface PutOptions {
  /** `Content-Type` the file is served with (drivers whose server decides it may ignore it). */
  contentType: string
  /** `Cache-Control` the file is served with (same remark). */
  cacheControl: string
}

export interface StorageDriver {
  /** `directory` or `supabase`, for messages and logs. */
  readonly name: string
  /**
   * Stores `bytes` at `path`. Resolves when stored, or when the same bytes are already there;
   * throws `StorageConflictError` when other bytes are, `InvalidStoragePathError` for a bad path.
   */
  put(path: string, bytes: Uint8Array, options: PutOptions): Promise<void>
  /** The SHA-256 (hex) of what is stored at `path`, or null when nothing is. */
  exists(path: string): Promise<{ sha256: string } | null>
  /** The URL browsers load `path` from. */
  publicUrl(path: string): string
}

/** Any failure of a storage driver; the message says what happened and what to do. */
export class StorageDriverError extends Error {
  override name = 'StorageDriverError'
}

/** The path already holds other bytes: published files never change. */
export class StorageConflictError extends StorageDriverError {
  override name = 'StorageConflictError'
  constructor(
    readonly path: string,
    readonly storedSha256: string,
    readonly newSha256: string,
  ) {
    super(
      `${path} is already published with other content (sha256 ${storedSha256.slice(0, 12)}…, ` +
        `this file ${newSha256.slice(0, 12)}…). Published files never change: publish a new version.`,
    )
  }
}

/** The path is not a safe relative path. */
export class InvalidStoragePathError extends StorageDriverError {
  override name = 'InvalidStoragePathError'
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Cannot store "${path}": ${reason}.`)
  }
}

/**
 * Characters every driver can store and serve unchanged: Supabase Storage's key characters, less
 * `?` (it would end the path of a public URL).
 */
const pathCharacters = /^[\w/!\-.*'() &$@=;:+,]+$/

/** Checks a relative storage path and returns its segments; throws `InvalidStoragePathError`. */
export function checkStoragePath(path: string): string[] {
  const refuse = (reason: string) => new InvalidStoragePathError(path, reason)
  if (path === '') throw refuse('the path is empty')
  if (path.length > 1024) throw refuse('a path has at most 1024 characters')
  if (path.startsWith('/')) throw refuse('the path must be relative (no leading /)')
  if (path.includes('\\')) throw refuse('backslashes are not allowed')
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(path)) throw refuse('control characters are not allowed')
  const segments = path.split('/')
  if (segments.some((segment) => segment === '.' || segment === '..'))
    throw refuse('the path must not contain . or .. segments')
  if (segments.some((segment) => segment === '')) throw refuse('the path has an empty segment')
  if (!pathCharacters.test(path))
    throw refuse("use letters, digits, _ and the characters /!-.*'() &$@=;:+, only")
  return segments
}

/** SHA-256 of `bytes`, lowercase hex (the descriptor's format). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}
