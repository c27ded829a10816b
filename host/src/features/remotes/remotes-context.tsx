import { createContext, useContext } from 'react'
import type { Platform, RemoteErrorReport, SnapshotRemote } from '@tessera/contracts'
import type { LoadOrder } from './load-order.ts'
import type { LoadTimingReporter } from './load-timing.ts'
import type { RemoteLoader } from './loader.ts'

/** A platform made for one mount, and the way to drop every subscription the plugin made with it. */
export interface MountedPlatform {
  platform: Platform
  dispose(): void
}

/** What outlets need from the app: the shared loader, a platform per mount, telemetry. */
export interface RemotesRuntime {
  loader: RemoteLoader
  /** Holds the header slots back until the page's remote is shown. */
  loadOrder: LoadOrder
  platformFor(remote: SnapshotRemote, version: string): MountedPlatform
  report(report: RemoteErrorReport): void
  /** How long each remote took to show (telemetry); absent where nothing is reported. */
  loadTiming?: LoadTimingReporter
}

export const RemotesContext = createContext<RemotesRuntime | null>(null)

export function useRemotesRuntime(): RemotesRuntime {
  const runtime = useContext(RemotesContext)
  if (!runtime) throw new Error('RemoteOutlet needs a RemotesContext provider above it')
  return runtime
}
