import { useEffect, useRef, useState } from 'react'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'

interface ConfirmActionProps {
  /** The button that asks ("Remove"). */
  label: string
  /** The question, which names what it is about ("Remove Ada Lovelace from Analytical Engines?"). */
  question: string
  /** The button that does it ("Yes, remove"), and what it says meanwhile ("Removing…"). */
  confirmLabel: string
  pendingLabel: string
  /** Does it; throws what `platform.api.fetch` threw. */
  run: () => Promise<void>
  /** Ties the first button to what it acts on (the row's name), for screen readers. */
  describedBy?: string
  variant?: 'danger' | 'secondary'
}

/**
 * A two-step action, as the sessions page signs a device out: the first press asks, the second
 * does it; Escape or Cancel steps back and returns focus. A refusal from the BFF ("a workspace
 * needs at least one owner…") is shown right here, as its sentence with the reference.
 */
export function ConfirmAction({
  label,
  question,
  confirmLabel,
  pendingLabel,
  run,
  describedBy,
  variant = 'danger',
}: ConfirmActionProps) {
  const [step, setStep] = useState<'idle' | 'confirming' | 'pending'>('idle')
  const [alert, setAlert] = useState<FormAlertContent | null>(null)
  const confirmRef = useRef<HTMLButtonElement>(null)
  const askRef = useRef<HTMLButtonElement>(null)
  const alertRef = useRef<HTMLDivElement>(null)
  const returnFocus = useRef<'ask' | 'alert' | null>(null)

  useEffect(() => {
    if (step === 'confirming') confirmRef.current?.focus()
    if (step !== 'idle' || returnFocus.current === null) return
    if (returnFocus.current === 'alert') alertRef.current?.focus()
    else askRef.current?.focus()
    returnFocus.current = null
  }, [step])

  const cancel = () => {
    returnFocus.current = 'ask'
    setStep('idle')
  }

  const confirm = async () => {
    if (step === 'pending') return
    setStep('pending')
    try {
      await run()
    } catch (error) {
      setAlert(describeFailure(error, []).alert)
      returnFocus.current = 'alert'
      setStep('idle')
    }
  }

  return (
    <div className="confirm-action">
      {step === 'idle' ? (
        <button
          ref={askRef}
          type="button"
          className={`button button--${variant === 'danger' ? 'secondary' : variant}`}
          aria-describedby={describedBy}
          onClick={() => {
            setAlert(null)
            setStep('confirming')
          }}
        >
          {label}
        </button>
      ) : (
        <div
          className="confirm-action__confirm"
          role="group"
          aria-label={question}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && step === 'confirming') {
              event.preventDefault()
              cancel()
            }
          }}
        >
          <p className="confirm-action__question">{question}</p>
          <button
            ref={confirmRef}
            type="button"
            className={`button button--${variant}`}
            disabled={step === 'pending'}
            aria-busy={step === 'pending'}
            onClick={() => void confirm()}
          >
            {step === 'pending' && <span className="spinner" aria-hidden="true" />}
            {step === 'pending' ? pendingLabel : confirmLabel}
          </button>
          <button
            type="button"
            className="button button--quiet"
            disabled={step === 'pending'}
            onClick={cancel}
          >
            Cancel
          </button>
        </div>
      )}
      <FormAlert alert={alert} alertRef={alertRef} />
    </div>
  )
}
