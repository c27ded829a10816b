import { useEventStatus } from '@tessera/plugin-react/platform'
import { dateTimeFormat } from '@tessera/plugin-react/format'

/** "Updated 09:05:12 · live": when the page last read the BFF, and whether live events arrive. */
export function UpdatedAt({ at }: { at: number | null }) {
  const status = useEventStatus()
  if (at === null) return null
  const time = dateTimeFormat({ timeStyle: 'medium' }).format(at)
  return (
    <p className="updated-at">
      <span
        className={status === 'open' ? 'live-dot live-dot--open' : 'live-dot'}
        aria-hidden="true"
      />
      Updated <time dateTime={new Date(at).toISOString()}>{time}</time>
      {status === 'open' ? ' · live' : ' · reconnecting to live updates'}
    </p>
  )
}
