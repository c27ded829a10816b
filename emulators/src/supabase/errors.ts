import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/**
 * An error answered the way GoTrue answers it. supabase-js reads `code` only when the response
 * echoes `X-Supabase-Api-Version`; older clients read `error_code` (see `errorBody`).
 */
export class GoTrueError extends Error {
  override readonly name = 'GoTrueError'
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    /** Extra top-level fields (GoTrue's `weak_password: { reasons }`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

export const badRequest = (code: string, message: string) => new GoTrueError(400, code, message)
export const unprocessable = (code: string, message: string) => new GoTrueError(422, code, message)
export const forbidden = (code: string, message: string) => new GoTrueError(403, code, message)

/** The first API version with error codes in `code`; the only dated version GoTrue knows. */
export const apiVersion20240101 = '2024-01-01'

/** GoTrue picks the closest known version not after the requested date. */
export function negotiatedApiVersion(header: string | undefined): string | null {
  if (header === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(header.trim())) return null
  return header.trim() >= apiVersion20240101 ? apiVersion20240101 : null
}

/** GoTrue's two body shapes: `{code, message}` (2024-01-01) or `{code: status, error_code, msg}`. */
export function errorBody(error: GoTrueError, version: string | null): Record<string, unknown> {
  if (version !== null) return { code: error.code, message: error.message, ...error.extra }
  return { code: error.status, error_code: error.code, msg: error.message, ...error.extra }
}

/** Renders a GoTrue error, echoing the negotiated API version as GoTrue does. */
export function respondWithError(c: Context, error: GoTrueError): Response {
  const version = negotiatedApiVersion(c.req.header('x-supabase-api-version'))
  if (version !== null) c.header('X-Supabase-Api-Version', version)
  return c.json(errorBody(error, version), error.status)
}
