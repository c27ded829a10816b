import { useId } from 'react'
import { useEventStatus, useLiveEvents } from '@tessera/plugin-react/platform'

function formatTime(at: string): string {
  const date = new Date(at)
  return Number.isNaN(date.getTime()) ? at : date.toLocaleTimeString()
}

/** The live events this mount has received from the platform, newest first. */
export function LiveEventLog() {
  const events = useLiveEvents()
  const status = useEventStatus()
  const headingId = useId()
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Live events</h2>
      <p>
        Stream: <strong className={`status status--${status}`}>{status}</strong>
      </p>
      {events.length === 0 ? (
        <p className="muted">No events yet. They appear here as the server sends them.</p>
      ) : null}
      {/* Always rendered, so screen readers announce additions to a region they already know. */}
      <ol className="event-log" aria-live="polite" aria-label="Received events, newest first">
        {events.map((event) => (
          <li key={event.id}>
            <code>{event.type}</code>
            <time dateTime={event.at}>{formatTime(event.at)}</time>
          </li>
        ))}
      </ol>
    </section>
  )
}
