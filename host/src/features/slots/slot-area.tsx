import type { SessionState, SlotName, SlotProps, SnapshotRemote } from '@tessera/contracts'
import { RemoteOutlet } from '../remotes/remote-outlet.tsx'

/**
 * Whether `remote` fills `slot` for this visitor: every slot its build names, but one it fills
 * for signed-in visitors only (`signedInSlots`) once the session says nobody is signed in, so a
 * visitor's page loads none of its code. While the session loads it stays (a signed-in page's
 * header keeps its place for it).
 */
export function fillsSlot(
  remote: SnapshotRemote,
  slot: SlotName,
  session: Pick<SessionState, 'status'>,
): boolean {
  if (!remote.slots.includes(slot)) return false
  return session.status !== 'signed-out' || !(remote.signedInSlots?.includes(slot) ?? false)
}

/**
 * Whether a slot `remote` fills waits before loading: one for signed-in visitors only while the
 * session is still being read (its outlet keeps the place, and loads once someone is signed in).
 */
export function holdsSlot(
  remote: SnapshotRemote,
  slot: SlotName,
  session: Pick<SessionState, 'status'>,
): boolean {
  return session.status === 'loading' && (remote.signedInSlots?.includes(slot) ?? false)
}

/** The remotes that fill `slot` for this visitor, in navigation order, then by name. */
export function remotesFilling(
  slot: SlotName,
  remotes: readonly SnapshotRemote[],
  session: Pick<SessionState, 'status'>,
): SnapshotRemote[] {
  return remotes
    .filter((remote) => fillsSlot(remote, slot, session))
    .sort((a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0) || a.name.localeCompare(b.name))
}

/**
 * Every remote's content for one slot, each in its own outlet (own element, own React root,
 * own fallback), given the slot's props.
 */
export function SlotArea<S extends SlotName>({
  slot,
  remotes,
  session,
  props,
  className,
}: {
  slot: S
  remotes: readonly SnapshotRemote[]
  session: Pick<SessionState, 'status'>
  props: SlotProps[S]
  className?: string
}) {
  const filling = remotesFilling(slot, remotes, session)
  if (filling.length === 0) return null
  return (
    <div className={className} data-tessera-slot={slot}>
      {filling.map((remote) => (
        <RemoteOutlet
          key={remote.name}
          remote={remote}
          target={{ kind: 'slot', slot, props }}
          hold={holdsSlot(remote, slot, session)}
        />
      ))}
    </div>
  )
}
