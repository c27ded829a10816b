import { useEffect, useSyncExternalStore } from 'react'
import type { SnapshotRemote } from '@tessera/contracts'
import type { SessionStore } from '../../lib/platform/session.ts'
import { useRemotesRuntime } from '../remotes/remotes-context.tsx'
import { SlotArea } from '../slots/slot-area.tsx'

/**
 * `/` when a plugin fills `home.card`: a card per plugin. Without one, `/` goes to the first
 * navigation item as before.
 */
export function HomePage({
  remotes,
  session,
}: {
  remotes: readonly SnapshotRemote[]
  session: Pick<SessionStore, 'current' | 'subscribe'>
}) {
  const runtime = useRemotesRuntime()
  const state = useSyncExternalStore(session.subscribe, session.current)
  // There is no page remote here to wait for: the cards may load at once.
  useEffect(() => runtime.loadOrder.releaseSlots(), [runtime])
  if (state.status === 'loading') return null
  const user = state.status === 'signed-in' ? state.user : null
  return (
    <section className="host-home" aria-labelledby="host-home-title">
      <h1 id="host-home-title" className="host-home__title">
        Home
      </h1>
      <SlotArea
        key={user?.id ?? 'visitor'}
        slot="home.card"
        remotes={remotes}
        session={state}
        props={{ user }}
        className="host-home__cards"
      />
    </section>
  )
}
