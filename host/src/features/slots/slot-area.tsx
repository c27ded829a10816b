import type { SlotName, SlotProps, SnapshotRemote } from '@tessera/contracts'
import { RemoteOutlet } from '../remotes/remote-outlet.tsx'

/** The remotes whose build says they fill `slot`, in navigation order, then by name. */
export function remotesFilling(
  slot: SlotName,
  remotes: readonly SnapshotRemote[],
): SnapshotRemote[] {
  return remotes
    .filter((remote) => remote.slots.includes(slot))
    .sort((a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0) || a.name.localeCompare(b.name))
}

/**
 * Every remote's content for one slot, each in its own outlet (own element, own React root,
 * own fallback), given the slot's props.
 */
export function SlotArea<S extends SlotName>({
  slot,
  remotes,
  props,
  className,
}: {
  slot: S
  remotes: readonly SnapshotRemote[]
  props: SlotProps[S]
  className?: string
}) {
  const filling = remotesFilling(slot, remotes)
  if (filling.length === 0) return null
  return (
    <div className={className} data-tessera-slot={slot}>
      {filling.map((remote) => (
        <RemoteOutlet key={remote.name} remote={remote} target={{ kind: 'slot', slot, props }} />
      ))}
    </div>
  )
}
