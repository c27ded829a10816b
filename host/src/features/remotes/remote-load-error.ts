import type { RemoteErrorStage } from '@tessera/contracts'

/** A failure to load a remote, tagged with the stage it happened in for telemetry and the card. */
export class RemoteLoadError extends Error {
  readonly stage: RemoteErrorStage
  /** Why, in a word the fallback card can turn into a sentence. */
  readonly reason: 'timeout' | 'unreachable' | 'invalid' | 'contract' | 'crashed'

  constructor(stage: RemoteErrorStage, reason: RemoteLoadError['reason'], message: string) {
    super(message)
    this.name = 'RemoteLoadError'
    this.stage = stage
    this.reason = reason
  }
}

/** What a remote's entry is known by: one federation registration per (name, version, url). */
export interface RemoteEntryRef {
  name: string
  version: string
  entryUrl: string
  /** Files the exposed module needs at once, to request together with the entry (a hint). */
  preload?: readonly string[]
  /** What its pages load next (the page may have hinted them: see `takeUpStylesheetHints`). */
  routePreload?: readonly string[]
}
