/**
 * The team usage report for owners and admins (docs/decisions/027): settled tokens per member,
 * model and day, as JSON or CSV. Read as the user (RLS lets owners and admins read every member's
 * rows); names and emails come from the BFF's connection, for the members RLS let through.
 */
import { ApiError } from '@tessera/contracts'
import type { UsageReport, UsageReportQuery } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { UsagePeriod } from './period.ts'
import { teamOf } from './workspace-scope.ts'

const day = (at: Date) => at.toISOString().slice(0, 10)

/** The refusal of a workspace the caller cannot see (or that is not a team). */
function unknownTeam(): ApiError {
  return new ApiError('not_found', {
    message: 'No team workspace of yours has this id. Reload the list of workspaces.',
    details: { reason: 'workspace_not_found' },
  })
}

export async function usageReport(
  sql: Sql,
  caller: { userId: string; claims: UserClaims },
  query: UsageReportQuery,
  period: UsagePeriod,
  today: Date,
  /** The team's monthly pool by its plan: the limit before its first send this month. */
  planTokens: (workspaceId: string) => Promise<number>,
): Promise<UsageReport> {
  const team = await teamOf(sql, query.workspace, caller.userId)
  if (team === null) throw unknownTeam()
  if (team.role === 'member') {
    throw new ApiError('workspace_role_required', {
      message: 'Only owners and admins can see the team’s usage. Ask one of them for the report.',
      details: { reason: 'usage_report' },
    })
  }
  const from = query.from ?? day(period.start)
  const to = query.to ?? day(today)
  const read = await withUser(
    sql,
    caller.claims,
    async (tx) => {
      const rows = await tx.query<{
        day: string
        user_id: string
        model: string
        tokens: number
        answers: number
      }>(
        `select to_char(day, 'YYYY-MM-DD') as day, user_id, model, tokens, answers
         from public.workspace_usage_daily
         where workspace_id = $1 and day between $2::date and $3::date
         order by day, user_id, model`,
        [team.id, from, to],
      )
      const members = await tx.query<{
        user_id: string
        role: 'owner' | 'admin' | 'member'
        cap: number | null
        used: number
        reserved: number
      }>(
        `select m.user_id, m.role, m.monthly_token_cap as cap,
           coalesce(u.used_tokens, 0) as used, coalesce(u.reserved_tokens, 0) as reserved
         from public.workspace_members m
         left join public.workspace_member_usage u on u.workspace_id = m.workspace_id
           and u.user_id = m.user_id and u.period_start = $2
         where m.workspace_id = $1
         order by case m.role when 'owner' then 0 when 'admin' then 1 else 2 end, m.joined_at`,
        [team.id, period.start],
      )
      const pool = await tx.query<{ used: number; reserved: number; limit: number }>(
        `select used_tokens as used, reserved_tokens as reserved, limit_tokens as limit
         from public.workspace_usage where workspace_id = $1 and period_start = $2`,
        [team.id, period.start],
      )
      return { rows: rows.rows, members: members.rows, pool: pool.rows[0] }
    },
    { readOnly: true },
  )
  const ids = [...new Set([...read.members, ...read.rows].map((row) => row.user_id))]
  const people = await sql.query<{ id: string; email: string | null; display_name: string | null }>(
    `select u.id, u.email, p.display_name from auth.users u
     left join public.profiles p on p.user_id = u.id
     where u.id in (select jsonb_array_elements_text($1::jsonb)::uuid)`,
    [JSON.stringify(ids)],
  )
  const person = new Map(people.rows.map((row) => [row.id, row]))
  const inRange = new Map<string, number>()
  for (const row of read.rows)
    inRange.set(row.user_id, (inRange.get(row.user_id) ?? 0) + Number(row.tokens))
  return {
    workspace: { id: team.id, name: team.name },
    from,
    to,
    // The pool's row is written by the month's first send; until then it is the plan's, unused.
    pool: read.pool ?? { used: 0, reserved: 0, limit: await planTokens(team.id) },
    members: read.members.map((member) => ({
      userId: member.user_id,
      email: person.get(member.user_id)?.email ?? '',
      displayName: person.get(member.user_id)?.display_name ?? null,
      role: member.role,
      cap: member.cap,
      used: Number(member.used),
      reserved: Number(member.reserved),
      tokens: inRange.get(member.user_id) ?? 0,
    })),
    rows: read.rows.map((row) => ({
      day: row.day,
      userId: row.user_id,
      model: row.model,
      tokens: Number(row.tokens),
      answers: Number(row.answers),
    })),
  }
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * Text that a spreadsheet would run as a formula (=, +, -, @ first) is given a leading quote mark.
 */
export function csvField(value: string | number): string {
  let text = String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The report as CSV: a header row, then one row per member, model and day; CRLF line ends. */
export function usageReportCsv(report: UsageReport): string {
  const members = new Map(report.members.map((member) => [member.userId, member]))
  const lines = [['day', 'user_id', 'email', 'name', 'model', 'tokens', 'answers']]
  for (const row of report.rows) {
    const member = members.get(row.userId)
    lines.push([
      row.day,
      row.userId,
      member?.email ?? '',
      member?.displayName ?? '',
      row.model,
      String(row.tokens),
      String(row.answers),
    ])
  }
  return lines.map((line) => line.map(csvField).join(',')).join('\r\n') + '\r\n'
}
