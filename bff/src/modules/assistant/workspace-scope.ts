/**
 * Which workspace the assistant works in for a request (docs/decisions/027): the session's current
 * one (`bff_sessions.workspace_id`, while the user is still a member), else the personal one,
 * which the assistant calls null. Also who to ask when a team's limits refuse a send.
 */
import type { Sql } from '@tessera/db/sql'

/** A team workspace the caller works in, with their role and their own cap. */
export interface TeamScope {
  id: string
  name: string
  role: 'owner' | 'admin' | 'member'
}

/** The session's current workspace when it is a team the user still belongs to; else null. */
export async function currentTeam(
  sql: Sql,
  sessionId: string | undefined,
  userId: string,
): Promise<TeamScope | null> {
  if (sessionId === undefined) return null
  const { rows } = await sql.query<TeamScope>(
    `select w.id, w.name, m.role from public.bff_sessions s
     join public.workspace_members m on m.workspace_id = s.workspace_id and m.user_id = s.user_id
     join public.workspaces w on w.id = s.workspace_id and w.kind = 'team'
     where s.id = $1 and s.user_id = $2`,
    [sessionId, userId],
  )
  return rows[0] ?? null
}

/** A team workspace the user belongs to, by id (the conversation's, the report's); else null. */
export async function teamOf(
  sql: Sql,
  workspaceId: string,
  userId: string,
): Promise<TeamScope | null> {
  const { rows } = await sql.query<TeamScope>(
    `select w.id, w.name, m.role from public.workspaces w
     join public.workspace_members m on m.workspace_id = w.id and m.user_id = $2
     where w.id = $1 and w.kind = 'team'`,
    [workspaceId, userId],
  )
  return rows[0] ?? null
}

/** The team's name and its owners and admins (display name, else email): who can raise limits. */
export async function teamContacts(
  sql: Sql,
  workspaceId: string,
): Promise<{ name: string; admins: string[] }> {
  const { rows } = await sql.query<{ workspace: string; name: string | null }>(
    `select w.name as workspace, coalesce(nullif(p.display_name, ''), u.email) as name
     from public.workspaces w
     left join public.workspace_members m on m.workspace_id = w.id and m.role in ('owner', 'admin')
     left join auth.users u on u.id = m.user_id
     left join public.profiles p on p.user_id = m.user_id
     where w.id = $1
     order by case m.role when 'owner' then 0 else 1 end, 2`,
    [workspaceId],
  )
  return {
    name: rows[0]?.workspace ?? 'your team',
    admins: rows.flatMap((row) => (row.name === null ? [] : [row.name])),
  }
}

/** "Ana, Ben or Cy": the people to ask, as a sentence's end. */
export function whoToAsk(admins: readonly string[]): string {
  if (admins.length === 0) return 'one of its owners or admins'
  if (admins.length === 1) return admins[0] ?? ''
  return `${admins.slice(0, -1).join(', ')} or ${admins[admins.length - 1]}`
}
