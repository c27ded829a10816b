import { useId, useRef, useState } from 'react'
import type { WorkspaceInvite } from '@tessera/contracts/workspaces'
import { formatDate, formatRelative } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { roleLabels } from '../roles.ts'
import { ConfirmAction } from './confirm-action.tsx'

interface InviteListProps {
  workspaceId: string
  invites: WorkspaceInvite[]
  onChanged: () => Promise<void>
}

/** Invites not yet answered (pending or expired), with resend and revoke. */
export function InviteList({ workspaceId, invites, onChanged }: InviteListProps) {
  if (invites.length === 0) return <p className="muted">No invites are waiting for an answer.</p>
  return (
    <ul className="member-list" aria-label="Pending invites">
      {invites.map((invite) => (
        <InviteRow
          key={invite.id}
          workspaceId={workspaceId}
          invite={invite}
          onChanged={onChanged}
        />
      ))}
    </ul>
  )
}

function InviteRow({
  workspaceId,
  invite,
  onChanged,
}: Omit<InviteListProps, 'invites'> & { invite: WorkspaceInvite }) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const emailId = useId()
  const [resending, setResending] = useState(false)
  const [alert, setAlert] = useState<FormAlertContent | null>(null)
  const alertRef = useRef<HTMLDivElement>(null)
  const sentAt = invite.lastSentAt ?? invite.createdAt
  const expired = invite.state === 'expired'

  const resend = async () => {
    if (resending) return
    setResending(true)
    setAlert(null)
    try {
      const answer = await api.resendInvite(workspaceId, invite.id)
      platform.notify({ kind: answer.emailSent ? 'success' : 'info', message: answer.message })
      await onChanged()
    } catch (error) {
      setAlert(describeFailure(error, []).alert)
      requestAnimationFrame(() => alertRef.current?.focus())
    } finally {
      setResending(false)
    }
  }

  const revoke = async () => {
    await api.revokeInvite(workspaceId, invite.id)
    platform.notify({
      kind: 'success',
      message: `The invite to ${invite.email} is revoked: its link no longer works.`,
    })
    await onChanged()
  }

  return (
    <li className="member">
      <div className="member__facts">
        <p className="member__name" id={emailId}>
          <span className="break-anywhere">{invite.email}</span>
          <span className="badge badge--role">{roleLabels[invite.role]}</span>
          {expired && <span className="badge badge--warning">Expired</span>}
        </p>
        <p className="member__detail muted">
          Sent{' '}
          <time dateTime={sentAt} title={formatDate(sentAt)}>
            {formatRelative(sentAt)}
          </time>
          {invite.invitedBy !== null && ` by ${invite.invitedBy}`} ·{' '}
          {expired ? 'expired' : 'expires'}{' '}
          <time dateTime={invite.expiresAt}>{formatDate(invite.expiresAt)}</time>
        </p>
      </div>
      <div className="member__actions">
        <button
          type="button"
          className="button button--secondary"
          disabled={resending}
          aria-busy={resending}
          aria-describedby={emailId}
          onClick={() => void resend()}
        >
          {resending && <span className="spinner" aria-hidden="true" />}
          {resending ? 'Resending…' : 'Resend'}
        </button>
        <ConfirmAction
          label="Revoke"
          question={`Revoke the invite to ${invite.email}?`}
          confirmLabel="Yes, revoke"
          pendingLabel="Revoking…"
          describedBy={emailId}
          run={revoke}
        />
      </div>
      <FormAlert alert={alert} alertRef={alertRef} />
    </li>
  )
}
