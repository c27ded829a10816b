import { useId, useRef, useState } from 'react'
import type { ReactNode } from 'react'
import type { InviteRole } from '@tessera/contracts/workspaces'
import { asApiError } from '@tessera/plugin-react/api-error'
import { formatMoney } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkInviteEmail } from '../../forms/validation.ts'
import { inviteRoles, roleLabels } from '../roles.ts'

/** An invite the BFF refused with `seat_confirmation_required`, waiting for the extra seat's OK. */
export interface SeatQuestion {
  email: string
  role: InviteRole
  seats: number
  needed: number
  preview: { prorationAmount: number; nextInvoiceTotal: number; currency: string } | null
}

/** The refusal's details as a question, or null when the error is something else. */
export function seatQuestionOf(
  error: unknown,
  email: string,
  role: InviteRole,
): SeatQuestion | null {
  const apiError = asApiError(error)
  if (apiError?.code !== 'seat_confirmation_required') return null
  const details = apiError.details ?? {}
  const preview = details.preview as SeatQuestion['preview'] | undefined
  return {
    email,
    role,
    seats: typeof details.seats === 'number' ? details.seats : 0,
    needed: typeof details.needed === 'number' ? details.needed : 0,
    preview:
      preview !== null &&
      typeof preview === 'object' &&
      typeof preview.prorationAmount === 'number' &&
      typeof preview.nextInvoiceTotal === 'number' &&
      typeof preview.currency === 'string'
        ? preview
        : null,
  }
}

const seatsText = (count: number) => (count === 1 ? '1 seat' : `${count} seats`)

/** Invites someone by email, as a member or an admin. */
export function InviteForm({
  workspaceId,
  onSent,
}: {
  workspaceId: string
  onSent: () => Promise<void>
}) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const headingId = useId()
  const roleId = useId()
  const [sent, setSent] = useState<string | null>(null)
  const [question, setQuestion] = useState<SeatQuestion | null>(null)

  const send = async (email: string, role: InviteRole, confirmExtraSeat: boolean) => {
    setSent(null)
    try {
      const answer = await api.invite(workspaceId, {
        email,
        role,
        ...(confirmExtraSeat ? { confirmExtraSeat: true } : {}),
      })
      setQuestion(null)
      form.reset({ email: '' })
      // Stored either way; when the email did not go out the sentence says to resend it.
      setSent(answer.message)
      platform.notify({ kind: answer.emailSent ? 'success' : 'info', message: answer.message })
      await onSent()
    } catch (error) {
      // Past the paid seats: ask the person to confirm the extra seat rather than fail.
      const asked = confirmExtraSeat ? null : seatQuestionOf(error, email, role)
      if (asked === null) throw error
      setQuestion(asked)
    }
  }

  const form = useForm({
    fields: { email: { validate: checkInviteEmail }, role: { initial: 'member' } },
    submit: ({ email, role }) => send(email.trim(), role as InviteRole, false),
  })
  const [confirming, setConfirming] = useState(false)
  const [confirmAlert, setConfirmAlert] = useState<FormAlertContent | null>(null)
  const confirmAlertRef = useRef<HTMLDivElement>(null)
  const confirmSeat = async () => {
    if (question === null || confirming) return
    setConfirming(true)
    setConfirmAlert(null)
    try {
      await send(question.email, question.role, true)
    } catch (error) {
      setConfirmAlert(describeFailure(error, []).alert)
      requestAnimationFrame(() => confirmAlertRef.current?.focus())
    } finally {
      setConfirming(false)
    }
  }

  return (
    <form
      ref={form.formRef}
      className="form"
      noValidate
      aria-labelledby={headingId}
      onSubmit={form.onSubmit}
    >
      <h3 id={headingId}>Invite someone</h3>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <div className="invite-form__fields">
        <Field
          label="Email address"
          type="email"
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="off"
          value={form.values.email}
          onValue={(value) => form.setValue('email', value)}
          onLeave={() => form.blur('email')}
          error={form.errors.email}
          hint="They get an email with a link that works for 7 days, for this address only."
          required
        />
        <div className="field">
          <label className="field__label" htmlFor={roleId}>
            Role
          </label>
          <select
            id={roleId}
            className="select field__input"
            value={form.values.role}
            onChange={(event) => form.setValue('role', event.target.value)}
          >
            {inviteRoles.map((role) => (
              <option key={role} value={role}>
                {roleLabels[role]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <SubmitButton
        pending={form.pending}
        cooldown={form.cooldown}
        label="Send invite"
        pendingLabel="Sending…"
      />
      <p role="status" className="invite-form__sent">
        {sent}
      </p>
      {question !== null && (
        <SeatConfirmation
          question={question}
          pending={confirming}
          onConfirm={() => void confirmSeat()}
          onCancel={() => {
            setQuestion(null)
            setConfirmAlert(null)
          }}
        >
          <FormAlert alert={confirmAlert} alertRef={confirmAlertRef} />
        </SeatConfirmation>
      )}
    </form>
  )
}

/** Asks to confirm the extra seat an invite needs, with what it costs (decision 026). */
function SeatConfirmation({
  question,
  pending,
  onConfirm,
  onCancel,
  children,
}: {
  question: SeatQuestion
  pending: boolean
  onConfirm: () => void
  onCancel: () => void
  children: ReactNode
}) {
  const headingId = useId()
  const { preview } = question
  const money = (amount: number) => formatMoney(amount, preview?.currency ?? 'usd')
  return (
    <section className="seat-confirmation" aria-labelledby={headingId}>
      <h4 id={headingId}>Confirm an extra seat</h4>
      <p>
        The team pays for {seatsText(question.seats)}; inviting {question.email} needs{' '}
        {seatsText(question.needed)}. The seat is charged when the invite is accepted.
      </p>
      {preview === null ? (
        <p>The cost could not be worked out just now; it shows on the next invoice.</p>
      ) : (
        <p>
          Prorated for the rest of this period: {money(preview.prorationAmount)}. Next invoice:{' '}
          {money(preview.nextInvoiceTotal)}.
        </p>
      )}
      {children}
      <div className="seat-confirmation__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={pending}
          aria-busy={pending}
          onClick={onConfirm}
        >
          {pending ? 'Sending…' : 'Add a seat and send invite'}
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  )
}
