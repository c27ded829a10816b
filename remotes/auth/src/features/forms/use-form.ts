import { useCallback, useEffect, useRef, useState } from 'react'
import type { FormEvent, RefObject } from 'react'
import { describeFailure, type FormAlertContent, type FormFailure } from '../../lib/form-errors.ts'
import { fieldChecksSettled, loadFieldChecks } from './validation.ts'

export interface FieldRule<F extends string> {
  initial?: string
  /**
   * The problem with a value, or null. `typing`: checked as the person types (shown once the
   * field was left, or at once for fields marked `live`); `submit`: checked before sending.
   */
  validate?: (value: string, values: Record<F, string>, phase: 'typing' | 'submit') => string | null
  /** Show this field's problem while typing, before the field was ever left. */
  live?: boolean
}

export interface UseFormOptions<F extends string> {
  fields: Record<F, FieldRule<F>>
  /** Sends the form; throws what `platform.api.fetch` threw on failure. */
  submit: (values: Record<F, string>) => Promise<void>
  /** Adjusts the failure a page shows (adds a resend action for `email_not_confirmed`, say). */
  adjustFailure?: (failure: FormFailure, error: unknown, values: Record<F, string>) => FormFailure
}

export interface FormState<F extends string> {
  values: Record<F, string>
  /** The problem shown next to each field (client check or server answer), or null. */
  errors: Record<F, string | null>
  alert: FormAlertContent | null
  pending: boolean
  /** Seconds left before a rate-limited form may be sent again. */
  cooldown: number
  setValue(name: F, value: string): void
  blur(name: F): void
  onSubmit(event: FormEvent<HTMLFormElement>): void
  /** Clears the alert and every server error (a page that reuses the form after success). */
  reset(values?: Partial<Record<F, string>>): void
  formRef: RefObject<HTMLFormElement | null>
  alertRef: RefObject<HTMLDivElement | null>
}

function mapFields<F extends string, T>(
  fields: Record<F, unknown>,
  value: (name: F) => T,
): Record<F, T> {
  return Object.fromEntries(
    (Object.keys(fields) as F[]).map((name) => [name, value(name)]),
  ) as Record<F, T>
}

/**
 * One form's state: values, checks as the person types, a submit that cannot run twice at once,
 * catalogue errors placed next to their fields, and focus moved to the first problem.
 */
export function useForm<F extends string>({
  fields,
  submit,
  adjustFailure,
}: UseFormOptions<F>): FormState<F> {
  const [values, setValues] = useState(() =>
    mapFields(fields, (name) => fields[name].initial ?? ''),
  )
  const [left, setLeft] = useState(() => mapFields(fields, () => false))
  const [attempted, setAttempted] = useState(false)
  const [serverErrors, setServerErrors] = useState<Partial<Record<F, string>>>({})
  const [alert, setAlert] = useState<FormAlertContent | null>(null)
  const [pending, setPending] = useState(false)
  const [cooldownUntil, setCooldownUntil] = useState(0)
  const [now, setNow] = useState(() => Date.now())
  const [focusRequest, setFocusRequest] = useState(0)
  // A ref, not state: two submits in one event-loop turn both see the first one's claim.
  const inFlight = useRef(false)
  const formRef = useRef<HTMLFormElement | null>(null)
  const alertRef = useRef<HTMLDivElement | null>(null)

  const cooldown = Math.max(0, Math.ceil((cooldownUntil - now) / 1000))
  useEffect(() => {
    if (cooldownUntil <= Date.now()) return
    const timer = setInterval(() => {
      setNow(Date.now())
      if (Date.now() >= cooldownUntil) clearInterval(timer)
    }, 1000)
    return () => clearInterval(timer)
  }, [cooldownUntil])

  // The checks' schemas load when the person first reaches into the form (focus, pointer, key),
  // so their download never competes with the page's own; drawing it again shows what they find.
  const [, setChecksSettled] = useState(fieldChecksSettled)
  useEffect(() => {
    let current = true
    const form = formRef.current
    const events = ['focusin', 'pointerdown', 'keydown'] as const
    const start = (): void => {
      for (const type of events) form?.removeEventListener(type, start)
      void loadFieldChecks().then(() => {
        if (current) setChecksSettled(true)
      })
    }
    if (form === null) start()
    else for (const type of events) form.addEventListener(type, start)
    return () => {
      current = false
      for (const type of events) form?.removeEventListener(type, start)
    }
  }, [])

  useEffect(() => {
    if (focusRequest === 0) return
    const invalid = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')
    if (invalid) invalid.focus()
    else alertRef.current?.focus()
  }, [focusRequest])

  const clientError = (name: F, phase: 'typing' | 'submit', from = values) =>
    fields[name].validate?.(from[name], from, phase) ?? null

  const errors = mapFields(fields, (name) => {
    const server = serverErrors[name]
    if (server !== undefined) return server
    if (attempted) return clientError(name, 'submit')
    if (left[name] || fields[name].live) return clientError(name, 'typing')
    return null
  })

  const setValue = useCallback((name: F, value: string) => {
    setValues((previous) => ({ ...previous, [name]: value }))
    // What the server said about the old value no longer holds.
    setServerErrors((previous) => {
      if (previous[name] === undefined) return previous
      const next = { ...previous }
      delete next[name]
      return next
    })
  }, [])

  const blur = useCallback((name: F) => {
    setLeft((previous) => (previous[name] ? previous : { ...previous, [name]: true }))
  }, [])

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (inFlight.current || cooldown > 0) return
    if (!fieldChecksSettled()) {
      // Sent before the checks arrived (a quick person on a slow line): check, then send.
      const form = formRef.current
      void loadFieldChecks().then(() => form?.requestSubmit())
      return
    }
    setAttempted(true)
    const problems = (Object.keys(fields) as F[]).filter((name) => clientError(name, 'submit'))
    if (problems.length > 0) {
      setServerErrors({})
      setAlert(null)
      setFocusRequest((n) => n + 1)
      return
    }
    inFlight.current = true
    setPending(true)
    setAlert(null)
    setServerErrors({})
    const sent = values
    submit(sent)
      .then(() => {
        setAttempted(false)
      })
      .catch((error: unknown) => {
        let failure = describeFailure(error, Object.keys(fields))
        if (adjustFailure) failure = adjustFailure(failure, error, sent)
        setServerErrors(failure.fieldErrors as Partial<Record<F, string>>)
        setAlert(failure.alert)
        if (failure.alert?.retryAfterSeconds) {
          // One clock reading for both, or a millisecond between them shows "31 seconds".
          const at = Date.now()
          setNow(at)
          setCooldownUntil(at + failure.alert.retryAfterSeconds * 1000)
        }
        setFocusRequest((n) => n + 1)
      })
      .finally(() => {
        inFlight.current = false
        setPending(false)
      })
  }

  const reset = useCallback((next: Partial<Record<F, string>> = {}) => {
    setValues((previous) => ({ ...previous, ...next }))
    setServerErrors({})
    setAlert(null)
    setAttempted(false)
    setLeft((previous) => mapFields(previous, () => false))
  }, [])

  return {
    values,
    errors,
    alert,
    pending,
    cooldown,
    setValue,
    blur,
    onSubmit,
    reset,
    formRef,
    alertRef,
  }
}
