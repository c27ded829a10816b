import { useId, useState } from 'react'
import type { InputHTMLAttributes, ReactNode } from 'react'

type InputProps = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange' | 'onBlur' | 'aria-invalid' | 'aria-describedby'
>

export interface FieldProps extends InputProps {
  label: string
  value: string
  onValue: (value: string) => void
  onLeave?: () => void
  /** The problem with the value, shown under it and tied to it for screen readers. */
  error: string | null
  /** Help that stays: a format, a rule, a live strength. */
  hint?: ReactNode
  /** Something beside the label (a "Forgot password?" link). */
  labelAside?: ReactNode
  /** Read `hint` out as it changes (a password strength meter). */
  liveHint?: boolean
  /** A control inside the input's box (the Show/Hide toggle of a password). */
  inputAside?: ReactNode
}

/** A labelled input with its hint and its error, wired with aria-invalid and aria-describedby. */
export function Field({
  label,
  value,
  onValue,
  onLeave,
  error,
  hint,
  labelAside,
  liveHint = false,
  inputAside,
  type = 'text',
  ...input
}: FieldProps) {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ')
  return (
    <div className={error ? 'field field--invalid' : 'field'}>
      <div className="field__label-row">
        <label className="field__label" htmlFor={id}>
          {label}
        </label>
        {labelAside}
      </div>
      <div className={inputAside ? 'field__control field__control--aside' : 'field__control'}>
        <input
          {...input}
          id={id}
          type={type}
          className="field__input"
          value={value}
          onChange={(event) => onValue(event.target.value)}
          onBlur={onLeave}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy || undefined}
        />
        {inputAside}
      </div>
      {hint && (
        <p id={hintId} className="field__hint" aria-live={liveHint ? 'polite' : undefined}>
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field__error">
          <span aria-hidden="true" className="field__error-icon">
            !
          </span>
          {error}
        </p>
      )}
    </div>
  )
}

/**
 * A password field with a Show/Hide toggle (people on phones mistype what they cannot see). The
 * toggle's name is its visible word, not "Show password": a name holding the field's label
 * would also be found when looking for the field by its label.
 */
export function PasswordField(props: Omit<FieldProps, 'type'>) {
  const [visible, setVisible] = useState(false)
  return (
    <Field
      {...props}
      type={visible ? 'text' : 'password'}
      spellCheck={false}
      autoCapitalize="off"
      inputAside={
        <button
          type="button"
          className="field__toggle"
          onClick={() => setVisible((shown) => !shown)}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      }
    />
  )
}
