import { useSyncExternalStore } from 'react'
import type { NoticeStore, Toast } from '../../lib/platform/notices.ts'

function ToastItem({ toast, notices }: { toast: Toast; notices: NoticeStore }) {
  return (
    <li
      className={`host-toast host-toast--${toast.kind}`}
      // Errors interrupt; the rest wait their turn in the polite region around the list.
      role={toast.kind === 'error' ? 'alert' : undefined}
      onMouseEnter={() => notices.hold(toast.id)}
      onMouseLeave={() => notices.release(toast.id)}
      onFocus={() => notices.hold(toast.id)}
      onBlur={() => notices.release(toast.id)}
    >
      <span className="host-toast__marker" aria-hidden="true" />
      <div className="host-toast__content">
        <p className="host-toast__message">{toast.message}</p>
        {toast.code && (
          <p className="host-toast__code">
            <span className="host-visually-hidden">Error code: </span>
            <code>{toast.code}</code>
          </p>
        )}
      </div>
      <button
        type="button"
        className="host-toast__dismiss"
        aria-label="Dismiss notification"
        onClick={() => notices.dismiss(toast.id)}
      >
        <svg
          viewBox="0 0 24 24"
          width="16"
          height="16"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          aria-hidden="true"
        >
          <path d="M6 6l12 12M18 6 6 18" />
        </svg>
      </button>
    </li>
  )
}

/** The toasts behind `platform.notify`, in one live region for the page. */
export function ToastRegion({ notices }: { notices: NoticeStore }) {
  const toasts = useSyncExternalStore(notices.subscribe, notices.current)
  return (
    <section className="host-toasts" aria-label="Notifications">
      <ol className="host-toasts__list" aria-live="polite" aria-relevant="additions text">
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} notices={notices} />
        ))}
      </ol>
    </section>
  )
}
