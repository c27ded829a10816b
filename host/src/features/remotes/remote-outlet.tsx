import { Component, useEffect, useRef, useState, type ErrorInfo, type ReactNode } from 'react'
import type {
  Platform,
  Plugin,
  SlotName,
  SlotProps,
  SnapshotRemote,
  Unmount,
} from '@tessera/contracts'
import { FallbackCard } from './fallback-card.tsx'
import { nextPaint, whenContentPainted } from './load-order.ts'
import { remoteLabel, type LoadOutcome, type RemoteFailure } from './loader.ts'
import { useRemotesRuntime } from './remotes-context.tsx'

export type OutletTarget =
  | { kind: 'route' }
  /** `props`: the slot's props (SlotProps), read when the plugin mounts. */
  | { kind: 'slot'; slot: SlotName; props?: SlotProps[SlotName] }

/** A mount function of any slot: the outlet passes the props its target carries. */
type AnyMount = (el: HTMLElement, platform: Platform, props?: object) => Unmount

type OutletState =
  | { status: 'loading' }
  | { status: 'loaded'; version: string }
  | { status: 'failed'; failure: RemoteFailure; version: string }

interface RemoteOutletProps {
  remote: SnapshotRemote
  target: OutletTarget
  /**
   * Shows the loading state without loading yet: a slot for signed-in visitors only while the
   * session is still being read (it keeps its place; its code waits to know it is wanted).
   */
  hold?: boolean
}

function describeTarget(target: OutletTarget): string {
  return target.kind === 'route' ? 'a page' : `the ${target.slot} slot`
}

function mountFnFor(plugin: Plugin, target: OutletTarget): AnyMount | null {
  const mount = target.kind === 'route' ? plugin.routes?.mount : plugin.slots?.[target.slot]
  return typeof mount === 'function' ? (mount as AnyMount) : null
}

/**
 * Shows one remote in one place (its page, or a slot in the frame). It loads the plugin when it is
 * first shown, mounts it into an element of its own, and unmounts it when it goes away. The
 * plugin renders with its own root, so whatever it does inside cannot unmount the host.
 */
function RemoteOutletInner({
  remote,
  target,
  hold = false,
  onRetry,
}: RemoteOutletProps & { onRetry: () => void }) {
  const runtime = useRemotesRuntime()
  const containerRef = useRef<HTMLDivElement>(null)
  const [state, setState] = useState<OutletState>({ status: 'loading' })
  const label = remoteLabel(remote)
  const slot = target.kind === 'slot' ? target.slot : null
  // Props are read when the plugin mounts; a new object with the same meaning must not remount.
  const propsRef = useRef(target.kind === 'slot' ? target.props : undefined)

  useEffect(() => {
    if (hold) return
    const outletTarget: OutletTarget = slot === null ? { kind: 'route' } : { kind: 'slot', slot }
    let cancelled = false
    let unmount: Unmount | null = null
    let mountedHere = false
    let dispose: (() => void) | null = null
    setState({ status: 'loading' })

    // A slot waits for the page's remote (load-order.ts); the page loads at once, and lets the
    // slots go once it is mounted or has failed.
    const loading: Promise<LoadOutcome | null> =
      slot === null
        ? runtime.loader.load(remote)
        : runtime.loadOrder
            .slotsMayLoad()
            .then(() => (cancelled ? null : runtime.loader.load(remote)))

    const show = (outcome: LoadOutcome | null): void => {
      if (cancelled || outcome === null) return
      if (!outcome.ok) {
        setState({ status: 'failed', failure: outcome.failure, version: remote.version })
        return
      }
      const mount = mountFnFor(outcome.plugin, outletTarget)
      const element = containerRef.current
      if (!mount || !element) {
        const message = `${remote.name}@${outcome.version} does not provide ${describeTarget(outletTarget)}`
        runtime.report({
          remote: remote.name,
          version: outcome.version,
          stage: 'plugin',
          message,
          fellBack: true,
        })
        setState({
          status: 'failed',
          version: outcome.version,
          failure: {
            stage: 'plugin',
            reason: 'invalid',
            message,
            sentence: null,
            triedPrevious: false,
          },
        })
        return
      }
      const mounted = runtime.platformFor(remote, outcome.version)
      const mountAt = performance.now()
      try {
        const result =
          slot === null
            ? mount(element, mounted.platform)
            : mount(element, mounted.platform, propsRef.current ?? {})
        unmount = typeof result === 'function' ? result : null
        mountedHere = true
        dispose = mounted.dispose
        setState({ status: 'loaded', version: outcome.version })
        const { timing } = outcome
        const reporter = runtime.loadTiming
        if (reporter !== undefined)
          void (slot === null ? whenContentPainted(element) : nextPaint()).then(() => {
            const readyAt = performance.now()
            reporter.record({
              remote: remote.name,
              version: outcome.version,
              target: outletTarget.kind,
              entryUrl:
                outcome.version === remote.version
                  ? remote.entryUrl
                  : (remote.previous?.entryUrl ?? ''),
              startedAt: timing.startedAt,
              entryMs: timing.entryMs,
              exposeMs: timing.exposeMs,
              mountMs: readyAt - mountAt,
              readyAt,
            })
          })
      } catch (error) {
        mounted.dispose()
        element.replaceChildren()
        const message = error instanceof Error ? error.message : String(error)
        console.error(`Remote ${remote.name}@${outcome.version} threw while mounting`, error)
        runtime.report({
          remote: remote.name,
          version: outcome.version,
          stage: 'mount',
          message,
          fellBack: true,
        })
        setState({
          status: 'failed',
          version: outcome.version,
          failure: {
            stage: 'mount',
            reason: 'crashed',
            message,
            sentence: null,
            triedPrevious: false,
          },
        })
      }
    }
    void loading.then(show).finally(() => {
      if (slot !== null) return
      // A page that mounted lets the slots go once its content is painted; a failed one at once.
      const element = containerRef.current
      const painted =
        mountedHere && element !== null ? whenContentPainted(element) : Promise.resolve()
      void painted.then(() => runtime.loadOrder.releaseSlots())
    })

    return () => {
      cancelled = true
      const unmountPlugin = unmount
      const disposePlatform = dispose
      // After the host's commit, not inside it: a plugin's unmount is usually its React root's,
      // which cannot finish while React is rendering (the slot host defers its own the same way).
      queueMicrotask(() => {
        try {
          unmountPlugin?.()
        } catch (error) {
          // A plugin that fails to clean up must not break navigation away from it.
          console.error(`Remote ${remote.name} threw while unmounting`, error)
        }
        disposePlatform?.()
      })
    }
  }, [runtime, remote, slot, hold])

  const isSlot = target.kind === 'slot'
  return (
    <div
      className={isSlot ? 'host-outlet host-outlet--slot' : 'host-outlet host-outlet--route'}
      aria-busy={state.status === 'loading'}
    >
      <div
        ref={containerRef}
        className="host-outlet__remote"
        data-tessera-remote={remote.name}
        hidden={state.status !== 'loaded'}
      />
      <div className="host-outlet__status" aria-live="polite">
        {state.status === 'loading' &&
          (isSlot ? (
            <span className="host-slot-skeleton">
              <span className="host-visually-hidden">Loading {label}…</span>
            </span>
          ) : (
            <div className="host-loading">
              <span className="host-spinner" aria-hidden="true" />
              <span>Loading {label}…</span>
            </div>
          ))}
        {state.status === 'failed' &&
          (isSlot ? (
            <button
              type="button"
              className="host-slot-failed"
              onClick={onRetry}
              title={`${label} could not load. Select to try again.`}
            >
              <span aria-hidden="true">!</span>
              <span className="host-visually-hidden">{label} could not load. Try again</span>
            </button>
          ) : (
            <FallbackCard
              label={label}
              version={state.version}
              failure={state.failure}
              onRetry={onRetry}
            />
          ))}
      </div>
    </div>
  )
}

interface BoundaryProps {
  remote: SnapshotRemote
  onError: (error: Error) => void
  children: ReactNode
  fallback: (error: Error) => ReactNode
}

/** Catches a render error of the outlet itself, so even a host bug here leaves the frame up. */
class OutletErrorBoundary extends Component<BoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null }

  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error }
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`The outlet for ${this.props.remote.name} crashed`, error, info.componentStack)
    this.props.onError(error)
  }

  override render(): ReactNode {
    if (this.state.error) return this.props.fallback(this.state.error)
    return this.props.children
  }
}

/** A remote's page or slot, with loading, fallback and retry. */
export function RemoteOutlet({ remote, target, hold = false }: RemoteOutletProps) {
  const runtime = useRemotesRuntime()
  const [attempt, setAttempt] = useState(0)
  // A retry remounts the whole outlet: fresh state, a fresh element, the loader asked again.
  const retry = () => setAttempt((n) => n + 1)
  return (
    <OutletErrorBoundary
      key={attempt}
      remote={remote}
      onError={(error) =>
        runtime.report({
          remote: remote.name,
          version: remote.version,
          stage: 'runtime',
          message: error.message,
          fellBack: true,
        })
      }
      fallback={(error) =>
        target.kind === 'slot' ? null : (
          <FallbackCard
            label={remoteLabel(remote)}
            version={remote.version}
            failure={{
              stage: 'runtime',
              reason: 'crashed',
              message: error.message,
              sentence: null,
              triedPrevious: false,
            }}
            onRetry={retry}
          />
        )
      }
    >
      <RemoteOutletInner remote={remote} target={target} hold={hold} onRetry={retry} />
    </OutletErrorBoundary>
  )
}
