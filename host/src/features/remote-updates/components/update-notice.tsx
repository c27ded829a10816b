import { useEffect, useState } from 'react'
import type { PlatformEvents, RegistrySnapshot } from '@tessera/contracts'
import { later, LaterBoundary } from '../../../lib/later.tsx'
import { watchRemoteUpdates } from '../remote-updates.ts'

/** The notice's code, fetched when a remote changes (update-notice-view.tsx). */
const noticeView = later(() =>
  import('./update-notice-view.tsx').then((module) => module.UpdateNoticeView),
)

interface UpdateNoticeProps {
  events: Pick<PlatformEvents, 'subscribe'>
  snapshot: RegistrySnapshot
  fetchSnapshot(): Promise<RegistrySnapshot>
  reload(): void
}

/** The notice, fed by the registry's live changes. */
export function UpdateNotice({ events, snapshot, fetchSnapshot, reload }: UpdateNoticeProps) {
  const [changed, setChanged] = useState<string[]>([])
  useEffect(
    () => watchRemoteUpdates({ events, loaded: snapshot, fetchSnapshot, onChange: setChanged }),
    [events, snapshot, fetchSnapshot],
  )
  if (changed.length === 0) return null
  return (
    <LaterBoundary loading={null} failed={null}>
      <noticeView.Component remotes={changed} reload={reload} />
    </LaterBoundary>
  )
}
