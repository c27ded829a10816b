import { useCallback, useEffect, useMemo, useState } from 'react'
import type { FormEvent } from 'react'
import type { UsageReport, UsageReportMember } from '@tessera/contracts/assistant'
import { AppLink } from '@tessera/plugin-react/app-link'
import { asApiError } from '@tessera/plugin-react/api-error'
import { formatCount } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { createAssistantApi } from '../../../lib/assistant-api.ts'
import { useUsage } from '../../usage/use-usage.ts'
import '../../../styles/controls.css'
import '../team-usage.css'

type ReportState =
  | { status: 'loading' }
  | { status: 'ready'; report: UsageReport }
  | { status: 'failed'; message: string }

const nameOf = (member: Pick<UsageReportMember, 'displayName' | 'email'>) =>
  member.displayName ?? member.email

/**
 * `/assistant/team-usage`: the current team's tokens per member (with their caps, editable by
 * owners and admins), per model and day, and the same as a CSV file.
 */
export function TeamUsagePage() {
  const platform = usePlatform()
  const api = useMemo(() => createAssistantApi(platform), [platform])
  const { state: usage } = useUsage()
  const workspaceId =
    usage.status === 'ready' && usage.usage.workspace !== undefined
      ? usage.usage.workspace.id
      : null
  const [range, setRange] = useState<{ from?: string; to?: string }>({})
  const [state, setState] = useState<ReportState>({ status: 'loading' })

  const load = useCallback(() => {
    if (workspaceId === null) return
    api.usageReport(workspaceId, range).then(
      (report) => setState({ status: 'ready', report }),
      (error: unknown) =>
        setState({
          status: 'failed',
          message: asApiError(error)?.message ?? 'The team’s usage could not be loaded.',
        }),
    )
  }, [api, workspaceId, range])
  useEffect(load, [load])

  if (usage.status === 'ready' && workspaceId === null) {
    return (
      <div className="team-usage">
        <h1>Team usage</h1>
        <p>Switch to a team workspace to see how its members use the shared tokens.</p>
        <AppLink to={platform.basePath}>Back to the assistant</AppLink>
      </div>
    )
  }

  const download = async () => {
    if (workspaceId === null) return
    const blob = await api.usageReportCsv(workspaceId, range)
    const link = document.createElement('a')
    link.href = URL.createObjectURL(blob)
    link.download = 'team-usage.csv'
    link.click()
    URL.revokeObjectURL(link.href)
  }

  const applyRange = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    const value = (name: string) => {
      const text = String(data.get(name) ?? '')
      return text === '' ? undefined : text
    }
    const next: { from?: string; to?: string } = {}
    const from = value('from')
    const to = value('to')
    if (from !== undefined) next.from = from
    if (to !== undefined) next.to = to
    setRange(next)
  }

  return (
    <div className="team-usage">
      <h1>Team usage</h1>
      <AppLink to={platform.basePath}>Back to the assistant</AppLink>
      <form className="team-usage__range" onSubmit={applyRange}>
        <label>
          From <input type="date" name="from" defaultValue={range.from} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={range.to} />
        </label>
        <button type="submit" className="button button--secondary button--small">
          Show
        </button>
        <button
          type="button"
          className="button button--primary button--small"
          onClick={() => void download()}
          disabled={state.status !== 'ready'}
        >
          Download CSV
        </button>
      </form>
      {state.status === 'loading' && <p role="status">Loading the team’s usage…</p>}
      {state.status === 'failed' && <p role="alert">{state.message}</p>}
      {state.status === 'ready' && <Report report={state.report} onChanged={load} />}
    </div>
  )
}

function Report({ report, onChanged }: { report: UsageReport; onChanged: () => void }) {
  const members = new Map(report.members.map((member) => [member.userId, member]))
  return (
    <>
      <p>
        {report.workspace.name}: {formatCount(report.pool.used)} of {formatCount(report.pool.limit)}{' '}
        shared tokens used this month.
      </p>
      <h2>Members</h2>
      <table className="team-usage__table">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Role</th>
            <th scope="col">This month</th>
            <th scope="col">In range</th>
            <th scope="col">Monthly cap</th>
          </tr>
        </thead>
        <tbody>
          {report.members.map((member) => (
            <tr key={member.userId}>
              <th scope="row">{nameOf(member)}</th>
              <td className="team-usage__role">{member.role}</td>
              <td>{formatCount(member.used)}</td>
              <td>{formatCount(member.tokens)}</td>
              <td>
                <CapEditor workspaceId={report.workspace.id} member={member} onSaved={onChanged} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Per model and day</h2>
      {report.rows.length === 0 ? (
        <p>Nothing was used in this range.</p>
      ) : (
        <table className="team-usage__table">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Member</th>
              <th scope="col">Model</th>
              <th scope="col">Tokens</th>
              <th scope="col">Answers</th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((row) => {
              const member = members.get(row.userId)
              return (
                <tr key={`${row.day}:${row.userId}:${row.model}`}>
                  <td>{row.day}</td>
                  <td>{member === undefined ? 'A former member' : nameOf(member)}</td>
                  <td>{row.model}</td>
                  <td>{formatCount(row.tokens)}</td>
                  <td>{formatCount(row.answers)}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </>
  )
}

function CapEditor({
  workspaceId,
  member,
  onSaved,
}: {
  workspaceId: string
  member: UsageReportMember
  onSaved: () => void
}) {
  const platform = usePlatform()
  const api = useMemo(() => createAssistantApi(platform), [platform])
  const [draft, setDraft] = useState(member.cap === null ? '' : String(member.cap))
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const cap = draft.trim() === '' ? null : Number(draft)
    if (cap !== null && (!Number.isInteger(cap) || cap < 0)) {
      setError('A cap is a whole number of tokens, or empty for none.')
      return
    }
    setSaving(true)
    setError(null)
    try {
      await api.setMemberCap(workspaceId, member.userId, cap)
      onSaved()
    } catch (failure) {
      setError(asApiError(failure)?.message ?? 'The cap could not be saved.')
    } finally {
      setSaving(false)
    }
  }
  return (
    <form className="team-usage__cap" onSubmit={(event) => void save(event)}>
      <label>
        <span className="visually-hidden">Monthly cap for {nameOf(member)}</span>
        <input
          inputMode="numeric"
          value={draft}
          placeholder="No cap"
          onChange={(event) => setDraft(event.target.value)}
          aria-invalid={error === null ? undefined : true}
        />
      </label>
      <button type="submit" className="button button--quiet button--small" disabled={saving}>
        Save
      </button>
      {error !== null && <p role="alert">{error}</p>}
    </form>
  )
}
