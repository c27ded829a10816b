import { remoteErrorReportSchema, type RemoteErrorReport } from '@tessera/contracts'
import { warnToConsole } from '../../lib/runtime.ts'
import type { BffClient } from '../../lib/platform/bff-client.ts'

const MAX_MESSAGE = 2000

export interface RemoteErrorReporterOptions {
  client: BffClient
  warn?: (message: string, detail?: unknown) => void
}

/**
 * Sends one remote failure to `POST /api/telemetry/remote-errors`. Fire-and-forget: it never throws
 * and never makes the caller wait, and `keepalive` lets a report survive the page being left.
 */
export function createRemoteErrorReporter({
  client,
  warn = warnToConsole,
}: RemoteErrorReporterOptions): (report: RemoteErrorReport) => void {
  return (report) => {
    const parsed = remoteErrorReportSchema.safeParse({
      ...report,
      message: report.message.slice(0, MAX_MESSAGE),
    })
    if (!parsed.success) {
      warn(
        'A remote failure could not be reported: it does not match the telemetry contract',
        parsed.error.issues,
      )
      return
    }
    client
      .reportRemoteError(parsed.data)
      .catch((error: unknown) => warn('A remote failure could not be reported', error))
  }
}
