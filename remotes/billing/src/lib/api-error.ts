import type { ErrorCode } from '@tessera/contracts/errors'

/**
 * What a failed `platform.api.fetch` throws, read by shape. The host throws its own copy of the
 * contracts' `ApiError` class, which is not this bundle's copy, so `instanceof` cannot be used
 * across the federation boundary (and importing the class would bring zod into every chunk).
 */
export interface ApiErrorLike {
  code: ErrorCode
  message: string
  status: number
  requestId: string | undefined
}

export function asApiError(error: unknown): ApiErrorLike | null {
  if (!(error instanceof Error) || error.name !== 'ApiError') return null
  const candidate = error as Error & Partial<Record<keyof ApiErrorLike, unknown>>
  if (typeof candidate.code !== 'string' || typeof candidate.status !== 'number') return null
  return {
    code: candidate.code as ErrorCode,
    message: candidate.message,
    status: candidate.status,
    requestId: typeof candidate.requestId === 'string' ? candidate.requestId : undefined,
  }
}
