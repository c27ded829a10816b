import { ApiError, errorBodySchema, type ErrorCode, type PlatformApi } from '@tessera/contracts'

type FetchImpl = (input: string, init?: RequestInit) => Promise<Response>

export interface ApiOptions {
  /** The BFF's origin; the host is served from it (or proxied to it in dev). */
  baseUrl: string
  fetchImpl?: FetchImpl
  /** Hears every catalogue error before it is thrown (the session store watches for revocation). */
  onError?: (error: ApiError, path: string) => void
  /** Hears every request as it leaves (the session store watches for this tab's own sign-out). */
  onRequest?: (path: string, method: string) => void
}

/** The catalogue code a bare status stands for, when a response carries no catalogue body. */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'unauthenticated'
    case 402:
      return 'plan_required'
    case 403:
      return 'forbidden'
    case 404:
      return 'not_found'
    case 405:
      return 'method_not_allowed'
    case 409:
      return 'conflict'
    case 413:
      return 'payload_too_large'
    case 415:
      return 'unsupported_media_type'
    case 422:
      return 'validation_failed'
    case 429:
      return 'rate_limited'
    case 502:
    case 503:
      return 'upstream_unavailable'
    case 504:
      return 'upstream_timeout'
    default:
      return status >= 400 && status < 500 ? 'validation_failed' : 'internal'
  }
}

/**
 * Rebuilds the `ApiError` a failed response stands for. A catalogue body is trusted for its code,
 * message and request id; anything else (a proxy's HTML page, say) is mapped from the status so
 * callers only ever handle catalogue codes.
 */
export async function toApiError(response: Response): Promise<ApiError> {
  const headerRequestId = response.headers.get('x-request-id') ?? undefined
  const text = await response.text().catch(() => '')
  let body: unknown
  try {
    body = text === '' ? null : JSON.parse(text)
  } catch {
    // Not JSON (a proxy's HTML page, say): the status mapping below is the answer for it.
    body = null
  }
  const parsed = errorBodySchema.safeParse(body)
  if (parsed.success) {
    const { code, message, requestId, details } = parsed.data.error
    return new ApiError(code, { message, requestId, ...(details ? { details } : {}) })
  }
  const code = codeForStatus(response.status)
  return new ApiError(code, headerRequestId ? { requestId: headerRequestId } : {})
}

function isAbort(error: unknown): boolean {
  return (
    error instanceof DOMException && (error.name === 'AbortError' || error.name === 'TimeoutError')
  )
}

/**
 * The platform's `fetch` for the BFF: cookies included, the CSRF header on every request, JSON
 * content type for string bodies, and every failure turned into an `ApiError` with a catalogue code.
 */
export function createApi({
  baseUrl,
  fetchImpl = (input, init) => fetch(input, init),
  onError,
  onRequest,
}: ApiOptions): PlatformApi {
  const fail = (error: ApiError, path: string): ApiError => {
    try {
      onError?.(error, path)
    } catch (listenerError) {
      // The caller's own error matters more than a failing observer of it.
      console.warn('An API error listener threw', listenerError)
    }
    return error
  }

  async function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, baseUrl).toString()
    const headers = new Headers(init.headers)
    headers.set('x-tessera-csrf', '1')
    if (typeof init.body === 'string' && !headers.has('content-type')) {
      headers.set('content-type', 'application/json')
    }
    if (!headers.has('accept')) headers.set('accept', 'application/json')
    try {
      onRequest?.(path, (init.method ?? 'GET').toUpperCase())
    } catch (listenerError) {
      console.warn('An API request listener threw', listenerError)
    }
    let response: Response
    try {
      response = await fetchImpl(url, { ...init, headers, credentials: 'include' })
    } catch (error) {
      // A caller's abort is a decision, not an outage: let it through unchanged.
      if (isAbort(error)) throw error
      throw fail(
        new ApiError('upstream_unavailable', {
          message: 'The Tessera server could not be reached. Check your connection and try again.',
        }),
        path,
      )
    }
    if (!response.ok) throw fail(await toApiError(response), path)
    return response
  }
  return { fetch: apiFetch, baseUrl }
}
