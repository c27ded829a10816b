interface SubmitButtonProps {
  pending: boolean
  label: string
  /** What the button says while the request is out ("Signing in…"). */
  pendingLabel: string
  /** Seconds before a rate-limited form may be sent again. */
  cooldown?: number
  variant?: 'primary' | 'secondary' | 'danger'
}

/** The submit button: disabled and busy (with a spinner) while pending, so nothing is sent twice. */
export function SubmitButton({
  pending,
  label,
  pendingLabel,
  cooldown = 0,
  variant = 'primary',
}: SubmitButtonProps) {
  return (
    <button
      type="submit"
      className={`button button--${variant}`}
      disabled={pending || cooldown > 0}
      aria-busy={pending}
    >
      {pending && <span className="spinner" aria-hidden="true" />}
      {pending ? pendingLabel : cooldown > 0 ? `${label} (${cooldown} s)` : label}
    </button>
  )
}
