import { useEffect, useId, useRef, useState } from 'react'
import type { KeyboardEvent, ReactNode } from 'react'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { FailureAlert } from './failure-alert.tsx'

export interface ConfirmDialogProps {
  title: string
  /** What the change does, in a sentence. */
  description?: ReactNode
  /** The state before and after, side by side ("1.0.0" → "1.3.0 at 20 %"). */
  change?: { label: string; before: string; after: string }
  confirmLabel: string
  /** A destructive action (roll back, revoke): the confirm button says so by its colour too. */
  danger?: boolean
  /** Fields the action needs (a percentage), shown above the buttons. */
  children?: ReactNode
  /** Whether the fields allow confirming; a sentence to show when they do not. */
  invalid?: string | null
  /** Does the action; a throw is shown in the dialog, which stays open. */
  onConfirm(): Promise<void>
  /** `lead` of a failure: what did not happen ("Nothing was promoted."). */
  failureLead: string
  /** The page's data is stale (a 409 conflict): read it again. */
  onReload(): Promise<void>
  onClose(): void
}

const focusable =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * A modal confirmation: the browser's own modal `<dialog>` (everything behind it inert, Escape
 * closes it), labelled by its title and described by its sentence, with Tab kept inside it. Focus
 * starts on Cancel, so a stray Enter changes nothing, and returns where it was on close.
 */
export function ConfirmDialog({
  title,
  description,
  change,
  confirmLabel,
  danger = false,
  children,
  invalid = null,
  onConfirm,
  failureLead,
  onReload,
  onClose,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const alertRef = useRef<HTMLDivElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)

  useEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    if (!dialog.open) dialog.showModal()
    cancelRef.current?.focus()
    return () => {
      if (dialog.open) dialog.close()
      opener?.focus()
    }
  }, [])

  useEffect(() => {
    if (failure) alertRef.current?.focus()
  }, [failure])

  const confirm = async () => {
    if (busy || invalid) return
    setBusy(true)
    setFailure(null)
    try {
      await onConfirm()
      onClose()
    } catch (error) {
      setFailure(describeFailure(error, failureLead))
      setBusy(false)
    }
  }

  const reload = async () => {
    await onReload()
    onClose()
  }

  // Tab and Shift-Tab wrap around inside the dialog instead of reaching the browser's toolbar.
  const keepFocusInside = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab' || ref.current === null) return
    const items = [...ref.current.querySelectorAll<HTMLElement>(focusable)]
    const first = items[0]
    const last = items.at(-1)
    if (first === undefined || last === undefined) return
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault()
        if (!busy) onClose()
      }}
      onKeyDown={keepFocusInside}
    >
      <form
        method="dialog"
        className="dialog__body"
        onSubmit={(event) => {
          event.preventDefault()
          void confirm()
        }}
      >
        <h2 id={titleId} className="dialog__title">
          {title}
        </h2>
        {description && (
          <p id={descriptionId} className="dialog__description">
            {description}
          </p>
        )}
        {change && (
          <div className="change" role="group" aria-label={change.label}>
            <div className="change__side">
              <span className="change__label">Before</span>
              <code className="change__value">{change.before}</code>
            </div>
            <span className="change__arrow" aria-hidden="true">
              →
            </span>
            <div className="change__side">
              <span className="change__label">After</span>
              <code className="change__value change__value--after">{change.after}</code>
            </div>
          </div>
        )}
        {children}
        {invalid && (
          <p className="dialog__invalid" role="status">
            {invalid}
          </p>
        )}
        {failure && (
          <FailureAlert failure={failure} alertRef={alertRef}>
            {failure.conflict && (
              <p className="failure__action">
                <button
                  type="button"
                  className="button button--primary"
                  onClick={() => void reload()}
                >
                  Reload
                </button>
              </p>
            )}
          </FailureAlert>
        )}
        <div className="dialog__actions">
          <button
            ref={cancelRef}
            type="button"
            className="button button--secondary"
            onClick={onClose}
            disabled={busy}
          >
            Cancel
          </button>
          {!failure?.conflict && (
            <button
              type="submit"
              className={danger ? 'button button--danger' : 'button button--primary'}
              aria-busy={busy}
              disabled={invalid !== null}
            >
              {busy && <span className="spinner" aria-hidden="true" />}
              {confirmLabel}
            </button>
          )}
        </div>
      </form>
    </dialog>
  )
}
