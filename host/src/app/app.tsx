import { startTransition, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { RegistrySnapshot } from '@tessera/contracts'
import { RemotesContext } from '../features/remotes/remotes-context.tsx'
import { watchRemoteRuntimeErrors } from '../features/remotes/runtime-errors.ts'
import { BootErrorPage } from './boot-error-page.tsx'
import { BootSkeleton } from './boot-skeleton.tsx'
import { Frame } from './frame.tsx'
import { prefetchLaterParts } from './later-parts.tsx'
import type { Kernel } from './kernel.ts'
import { BootError, fetchSnapshot } from './snapshot.ts'
import { startShownRemotes } from './start-remotes.ts'

type BootState =
  | { status: 'loading' }
  | { status: 'failed'; message: string; code: string | null; retrying: boolean }
  | { status: 'ready'; snapshot: RegistrySnapshot }

interface AppProps {
  kernel: Kernel
  showDiagnostics: boolean
  /** The snapshot request the entry already started; later tries fetch afresh. */
  initialSnapshot?: Promise<RegistrySnapshot>
}

/**
 * Boot: the registry snapshot comes first, because the navigation and every route are drawn from
 * it; then the session and the live stream start. Without a snapshot there is a full-page error.
 */
export function App({ kernel, showDiagnostics, initialSnapshot }: AppProps) {
  const [state, setState] = useState<BootState>({ status: 'loading' })
  const firstSnapshot = useRef(initialSnapshot)

  const boot = useCallback(async () => {
    try {
      const pending = firstSnapshot.current ?? fetchSnapshot(kernel.client)
      firstSnapshot.current = undefined
      const snapshot = await pending
      // The frame and its first page render in slices the browser can interrupt, not in one long
      // task on a slow phone's main thread (decision 051). A first page whose code is in a file
      // of its own (later-parts.tsx) keeps the skeleton up until that file is in.
      startTransition(() => setState({ status: 'ready', snapshot }))
    } catch (error) {
      if (!(error instanceof BootError)) console.error('Boot failed', error)
      setState({
        status: 'failed',
        message:
          error instanceof BootError ? error.message : 'Something went wrong while starting.',
        code: error instanceof BootError ? error.code : null,
        retrying: false,
      })
    }
  }, [kernel])

  useEffect(() => {
    void boot()
  }, [boot])

  const ready = state.status === 'ready' ? state.snapshot : null
  // Once the frame with its navigation is in the DOM (layout effect: after the commit, before
  // paint), the remotes the page shows start loading, without waiting for the outlets' effects.
  useLayoutEffect(() => {
    if (ready) startShownRemotes(kernel, ready)
  }, [ready, kernel])

  useEffect(() => {
    if (!ready) return
    kernel.session.start()
    kernel.events.connect()
    // Once the page is painted (when the header's slots may load), the parts opened next.
    void kernel.remotes.loadOrder.slotsMayLoad().then(prefetchLaterParts)
    return watchRemoteRuntimeErrors({
      target: window,
      remotes: ready.remotes,
      report: kernel.remotes.report,
    })
  }, [ready, kernel])

  if (state.status === 'loading') return <BootSkeleton />
  if (state.status === 'failed') {
    return (
      <BootErrorPage
        message={state.message}
        code={state.code}
        retrying={state.retrying}
        onRetry={() => {
          setState({ ...state, retrying: true })
          void boot()
        }}
      />
    )
  }
  return (
    <RemotesContext value={kernel.remotes}>
      <Frame kernel={kernel} snapshot={state.snapshot} showDiagnostics={showDiagnostics} />
    </RemotesContext>
  )
}
