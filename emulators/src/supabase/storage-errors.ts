import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/**
 * An error answered the way Supabase Storage answers it: `{ statusCode, code, error, message }`
 * where `statusCode` is the real status as a string. Like hosted Storage, the HTTP status is 400
 * for every 4xx (500 stays 500): storage-js turns it into `StorageApiError` with `status` 400 and
 * `statusCode` '404', '409', '413'… — read `statusCode`, not `status`.
 */
export class StorageError extends Error {
  override readonly name = 'StorageError'
  constructor(
    /** The status Storage means (`statusCode` in the body). */
    readonly statusCode: number,
    /** Storage's `ErrorCode` (`NoSuchKey`, `KeyAlreadyExists`…). */
    readonly code: string,
    /** Storage's older `error` field, which some clients still read. */
    readonly error: string,
    message: string,
    /** The HTTP status when it is not Storage's usual one (unknown routes answer 404). */
    readonly httpStatus: ContentfulStatusCode = statusCode >= 500 ? 500 : 400,
  ) {
    super(message)
  }
}

export const noSuchBucket = () =>
  new StorageError(404, 'NoSuchBucket', 'Bucket not found', 'Bucket not found')

export const noSuchKey = () => new StorageError(404, 'NoSuchKey', 'not_found', 'Object not found')

export const bucketAlreadyExists = () =>
  new StorageError(409, 'BucketAlreadyExists', 'Duplicate', 'The resource already exists')

export const keyAlreadyExists = () =>
  new StorageError(409, 'KeyAlreadyExists', 'Duplicate', 'The resource already exists')

export const invalidBucketName = (reason: string) =>
  new StorageError(400, 'InvalidBucketName', 'Invalid Input', `Bucket name invalid: ${reason}`)

export const invalidKey = (key: string, reason: string) =>
  new StorageError(400, 'InvalidKey', 'InvalidKey', `Invalid key: ${key} (${reason})`)

export const invalidRequest = (message: string) =>
  new StorageError(400, 'InvalidRequest', 'InvalidRequest', message)

export const entityTooLarge = (limitBytes: number) =>
  new StorageError(
    413,
    'EntityTooLarge',
    'Payload too large',
    `The object exceeded the maximum allowed size (${limitBytes} bytes)`,
  )

/**
 * What hosted Storage says when row level security refuses a write; the stand-in has no storage
 * policies, so only the service role (which bypasses RLS) may write.
 */
export const rowLevelSecurity = () =>
  new StorageError(
    403,
    'AccessDenied',
    'Unauthorized',
    'new row violates row-level security policy (the Tessera Supabase stand-in has no storage policies: write with the service role key)',
  )

export const invalidJwt = (reason: string) =>
  new StorageError(403, 'InvalidJWT', 'Unauthorized', `invalid JWT: ${reason}`)

/** A route or parameter the stand-in leaves out, named so nobody mistakes it for a bug. */
export const notProvided = (what: string) =>
  new StorageError(
    404,
    'NotSupported',
    'Not Found',
    `The Tessera Supabase stand-in does not provide ${what}.`,
    404,
  )

export const unexpectedFailure = () =>
  new StorageError(500, 'InternalError', 'Internal', 'Internal server error')

/** Storage's error body. */
export function storageErrorBody(error: StorageError): Record<string, string> {
  return {
    statusCode: String(error.statusCode),
    code: error.code,
    error: error.error,
    message: error.message,
  }
}

export function respondWithStorageError(c: Context, error: StorageError): Response {
  return c.json(storageErrorBody(error), error.httpStatus)
}
