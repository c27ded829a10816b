import { useId, useRef, useState } from 'react'
import type {
  WorkspaceMember,
  WorkspaceRole,
  WorkspaceSummary,
} from '@tessera/contracts/workspaces'
import { formatDate } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { canRemove, memberName, roleChoices, roleLabels, roleWithArticle } from '../roles.ts'
import { ConfirmAction } from './confirm-action.tsx'

interface MemberListProps {
  workspace: WorkspaceSummary
  members: WorkspaceMember[]
  viewerId: string
  /** Reads the members again after a change. */
  onChanged: () => Promise<void>
}

/** The members of a workspace: who, their role (a choice where the viewer may change it), since when. */
export function MemberList({ workspace, members, viewerId, onChanged }: MemberListProps) {
  return (
    <ul className="member-list" aria-label={`Members of ${workspace.name}`}>
      {members.map((member) => (
        <MemberRow
          key={member.userId}
          workspace={workspace}
          member={member}
          viewerId={viewerId}
          onChanged={onChanged}
        />
      ))}
    </ul>
  )
}

function MemberRow({
  workspace,
  member,
  viewerId,
  onChanged,
}: Omit<MemberListProps, 'members'> & { member: WorkspaceMember }) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const nameId = useId()
  const [pendingRole, setPendingRole] = useState<WorkspaceRole | null>(null)
  const [alert, setAlert] = useState<FormAlertContent | null>(null)
  const alertRef = useRef<HTMLDivElement>(null)
  const name = memberName(member)
  const isYou = member.userId === viewerId
  const choices = roleChoices(workspace, member)

  const changeRole = async (role: WorkspaceRole) => {
    if (role === member.role || pendingRole !== null) return
    setPendingRole(role)
    setAlert(null)
    try {
      await api.changeRole(workspace.id, member.userId, role)
      platform.notify({
        kind: 'success',
        message: `${isYou ? 'You are' : `${name} is`} now ${roleWithArticle[role]} of ${workspace.name}.`,
      })
      await onChanged()
    } catch (error) {
      setAlert(describeFailure(error, []).alert)
      // After the alert is drawn: it says why the role did not change.
      requestAnimationFrame(() => alertRef.current?.focus())
    } finally {
      setPendingRole(null)
    }
  }

  const remove = async () => {
    await api.removeMember(workspace.id, member.userId)
    platform.notify({
      kind: 'success',
      message: `${name} is no longer a member of ${workspace.name}.`,
    })
    await onChanged()
  }

  return (
    <li className="member">
      <div className="member__facts">
        <p className="member__name" id={nameId}>
          <span className="break-anywhere">{name}</span>
          {isYou && <span className="badge">You</span>}
        </p>
        {member.displayName !== null && (
          <p className="member__detail muted break-anywhere">{member.email}</p>
        )}
        <p className="member__detail muted">
          Joined <time dateTime={member.joinedAt}>{formatDate(member.joinedAt)}</time>
        </p>
      </div>
      <div className="member__actions">
        {choices.length > 0 ? (
          <label className="member__role">
            <span>
              Role<span className="visually-hidden"> of {name}</span>
            </span>
            <select
              className="select"
              value={pendingRole ?? member.role}
              disabled={pendingRole !== null}
              aria-busy={pendingRole !== null}
              onChange={(event) => void changeRole(event.target.value as WorkspaceRole)}
            >
              {choices.map((role) => (
                <option key={role} value={role}>
                  {roleLabels[role]}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="badge badge--role">{roleLabels[member.role]}</span>
        )}
        {canRemove(workspace, member, viewerId) && (
          <ConfirmAction
            label="Remove"
            question={`Remove ${name} from ${workspace.name}?`}
            confirmLabel="Yes, remove"
            pendingLabel="Removing…"
            describedBy={nameId}
            run={remove}
          />
        )}
      </div>
      <FormAlert alert={alert} alertRef={alertRef} />
    </li>
  )
}
