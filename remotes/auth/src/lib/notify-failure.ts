import type { Platform } from '@tessera/contracts/platform'
import { asApiError } from '@tessera/plugin-react/api-error'
import { describeFailure } from './form-errors.ts'

/** Tells the person, as a notice, that an action outside a form failed and what to do next. */
export function notifyFailure(platform: Platform, error: unknown, what: string): void {
  const apiError = asApiError(error)
  const { alert } = describeFailure(error, [])
  platform.notify({
    kind: 'error',
    message: `${what} ${alert?.message ?? 'Try again in a moment.'}`,
    ...(apiError ? { code: apiError.code } : {}),
  })
}
