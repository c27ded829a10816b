import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import type { SessionState, SlotName, SlotProps, SnapshotRemote } from '@tessera/contracts'
import { RemotesContext, type RemotesRuntime } from '../remotes/remotes-context.tsx'
import { SlotArea } from './slot-area.tsx'

/** `platform.slots` (contract 1.1): other plugins' slots inside a plugin's own page. */
export interface SlotHost {
  /** The snapshot's remotes, set once the frame has it. */
  setRemotes(remotes: readonly SnapshotRemote[]): void
  mount<S extends SlotName>(slot: S, el: HTMLElement, props: SlotProps[S]): () => void
}

/**
 * Mounts a host React root (the one shared React) into the element a plugin hands over, with the
 * same outlets the frame uses: each filling remote isolated, with its fallback and telemetry.
 */
export function createSlotHost(
  runtime: () => RemotesRuntime,
  session: () => Pick<SessionState, 'status'>,
): SlotHost {
  let remotes: readonly SnapshotRemote[] = []
  return {
    setRemotes(next) {
      remotes = next
    },
    mount(slot, el, props) {
      const root = createRoot(el)
      root.render(
        <StrictMode>
          <RemotesContext value={runtime()}>
            <SlotArea
              slot={slot}
              remotes={remotes}
              session={session()}
              props={props}
              className="host-slot-area"
            />
          </RemotesContext>
        </StrictMode>,
      )
      // The plugin calls this from its own cleanup, often while React is rendering: unmount after.
      return () => queueMicrotask(() => root.unmount())
    },
  }
}
