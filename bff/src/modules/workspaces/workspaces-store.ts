/**
 * The SQL of workspaces and their members (20261126111000_workspaces.sql). Reads a person asks
 * for run as the user (`withUser`), so RLS lets through only their own workspaces; writes run on
 * the BFF's own connection inside the service's transaction, after it locked the workspace row
 * (every change of a workspace's members takes that lock first, so checks and writes see one
 * state).
 */
import {
  ApiError,
  type WorkspaceKind,
  type WorkspaceMember,
  type WorkspaceRole,
  type WorkspaceSummary,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'

export interface LockedWorkspace {
  id: string
  name: string
  kind: WorkspaceKind
  /** The caller's role; null when they are not a member. */
  role: WorkspaceRole | null
  owners: number
}

type SummaryRow = {
  id: string
  name: string
  kind: WorkspaceKind
  role: WorkspaceRole
  member_count: number
  created_at: Date
}

type MemberRow = {
  user_id: string
  role: WorkspaceRole
  monthly_token_cap: number | null
  joined_at: Date
}

const iso = (value: Date | string) => new Date(value).toISOString()

/** The refusal for a workspace the caller is not a member of (or that does not exist). */
export function unknownWorkspace(): ApiError {
  return new ApiError('not_found', {
    message:
      'No workspace of yours has this id: it may have been deleted, or you are no longer a member. Reload the list of workspaces.',
    details: { reason: 'workspace_not_found' },
  })
}

const summaryText = `select w.id, w.name, w.kind, m.role, w.created_at,
    (select count(*)::int from public.workspace_members c where c.workspace_id = w.id) as member_count
  from public.workspaces w
  join public.workspace_members m on m.workspace_id = w.id and m.user_id = (select auth.uid())`

const roleOrder = `case role when 'owner' then 0 when 'admin' then 1 else 2 end`

export type WorkspacesStore = ReturnType<typeof createWorkspacesStore>

export function createWorkspacesStore(sql: Sql) {
  const toSummary = (row: SummaryRow, currentId: string): WorkspaceSummary => ({
    id: row.id,
    name: row.name,
    kind: row.kind,
    role: row.role,
    memberCount: Number(row.member_count),
    current: row.id === currentId,
    createdAt: iso(row.created_at),
  })

  /** Emails and display names of users, read with the BFF's connection (auth.users is not the user's). */
  const peopleOf = async (on: SqlQueryable, ids: readonly string[]) => {
    if (ids.length === 0) return new Map<string, { email: string; displayName: string | null }>()
    const { rows } = await on.query<{
      id: string
      email: string | null
      display_name: string | null
    }>(
      `select u.id, u.email, p.display_name from auth.users u
       left join public.profiles p on p.user_id = u.id
       where u.id in (select jsonb_array_elements_text($1::jsonb)::uuid)`,
      [JSON.stringify(ids)],
    )
    return new Map(
      rows.map((row) => [row.id, { email: row.email ?? '', displayName: row.display_name }]),
    )
  }

  return {
    peopleOf: (ids: readonly string[]) => peopleOf(sql, ids),

    /** The user's personal workspace (created when missing); its id. */
    async ensurePersonal(userId: string, on: SqlQueryable = sql): Promise<string> {
      const { rows } = await on.query<{ id: string }>(
        'select tessera_private.ensure_personal_workspace($1) as id',
        [userId],
      )
      const id = rows[0]?.id
      if (id === undefined) throw new Error('the personal workspace was neither found nor made')
      return id
    },

    /** The workspace the session works in, when the user is still a member of it. */
    async sessionWorkspace(sessionId: string, userId: string): Promise<string | null> {
      const { rows } = await sql.query<{ workspace_id: string }>(
        `select s.workspace_id from public.bff_sessions s
         join public.workspace_members m on m.workspace_id = s.workspace_id and m.user_id = $2
         where s.id = $1 and s.user_id = $2`,
        [sessionId, userId],
      )
      return rows[0]?.workspace_id ?? null
    },

    async setSessionWorkspace(
      tx: SqlQueryable,
      sessionId: string,
      userId: string,
      workspaceId: string | null,
    ): Promise<void> {
      await tx.query(
        'update public.bff_sessions set workspace_id = $3 where id = $1 and user_id = $2',
        [sessionId, userId, workspaceId],
      )
    },

    /** Every session of the user that works in the workspace goes back to their personal one. */
    async leaveSessions(tx: SqlQueryable, workspaceId: string, userId: string): Promise<void> {
      await tx.query(
        'update public.bff_sessions set workspace_id = null where user_id = $1 and workspace_id = $2',
        [userId, workspaceId],
      )
    },

    /** The user's workspaces as RLS shows them: personal first, then teams by name. */
    async list(claims: UserClaims, currentId: string): Promise<WorkspaceSummary[]> {
      const rows = await withUser(
        sql,
        claims,
        async (tx) =>
          (
            await tx.query<SummaryRow>(
              `${summaryText} order by w.kind = 'team', lower(w.name), w.created_at, w.id`,
            )
          ).rows,
        { readOnly: true },
      )
      return rows.map((row) => toSummary(row, currentId))
    },

    /** One workspace of the user (RLS), or null. */
    async summary(
      claims: UserClaims,
      workspaceId: string,
      currentId: string,
    ): Promise<WorkspaceSummary | null> {
      const row = await withUser(
        sql,
        claims,
        async (tx) =>
          (await tx.query<SummaryRow>(`${summaryText} where w.id = $1`, [workspaceId])).rows[0],
        { readOnly: true },
      )
      return row === undefined ? null : toSummary(row, currentId)
    },

    /** The member list as RLS shows it (only to members), with emails and names. */
    async members(claims: UserClaims, workspaceId: string): Promise<WorkspaceMember[] | null> {
      const rows = await withUser(
        sql,
        claims,
        async (tx) =>
          (
            await tx.query<MemberRow>(
              `select user_id, role, monthly_token_cap, joined_at from public.workspace_members
               where workspace_id = $1 order by ${roleOrder}, joined_at, user_id`,
              [workspaceId],
            )
          ).rows,
        { readOnly: true },
      )
      if (rows.length === 0) return null
      const people = await peopleOf(
        sql,
        rows.map((row) => row.user_id),
      )
      return rows.map((row) => ({
        userId: row.user_id,
        email: people.get(row.user_id)?.email ?? '(deleted account)',
        displayName: people.get(row.user_id)?.displayName ?? null,
        role: row.role,
        monthlyTokenCap: row.monthly_token_cap,
        joinedAt: iso(row.joined_at),
      }))
    },

    /**
     * Locks the workspace row (every change of its members takes this lock first) and reads the
     * caller's role and the number of owners; null when there is no such workspace.
     */
    async lock(
      tx: SqlQueryable,
      workspaceId: string,
      userId: string,
      /** `read`: the same answer without the lock, for a check before a read. */
      mode: 'update' | 'read' = 'update',
    ): Promise<LockedWorkspace | null> {
      const { rows } = await tx.query<{ id: string; name: string; kind: WorkspaceKind }>(
        `select id, name, kind from public.workspaces where id = $1${mode === 'update' ? ' for update' : ''}`,
        [workspaceId],
      )
      const workspace = rows[0]
      if (workspace === undefined) return null
      const { rows: members } = await tx.query<{ user_id: string; role: WorkspaceRole }>(
        'select user_id, role from public.workspace_members where workspace_id = $1',
        [workspaceId],
      )
      return {
        ...workspace,
        role: members.find((member) => member.user_id === userId)?.role ?? null,
        owners: members.filter((member) => member.role === 'owner').length,
      }
    },

    async memberRole(
      tx: SqlQueryable,
      workspaceId: string,
      userId: string,
    ): Promise<WorkspaceRole | null> {
      const { rows } = await tx.query<{ role: WorkspaceRole }>(
        'select role from public.workspace_members where workspace_id = $1 and user_id = $2',
        [workspaceId, userId],
      )
      return rows[0]?.role ?? null
    },

    async memberIds(tx: SqlQueryable, workspaceId: string): Promise<string[]> {
      const { rows } = await tx.query<{ user_id: string }>(
        'select user_id from public.workspace_members where workspace_id = $1',
        [workspaceId],
      )
      return rows.map((row) => row.user_id)
    },

    async createTeam(tx: SqlQueryable, userId: string, name: string): Promise<string> {
      const { rows } = await tx.query<{ id: string }>(
        `insert into public.workspaces (name, kind, created_by) values ($1, 'team', $2) returning id`,
        [name, userId],
      )
      const id = rows[0]?.id
      if (id === undefined) throw new Error('the workspace was not created')
      await tx.query(
        `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'owner')`,
        [id, userId],
      )
      return id
    },

    async rename(tx: SqlQueryable, workspaceId: string, name: string): Promise<void> {
      await tx.query('update public.workspaces set name = $2 where id = $1', [workspaceId, name])
    },

    async setRole(
      tx: SqlQueryable,
      workspaceId: string,
      userId: string,
      role: WorkspaceRole,
    ): Promise<void> {
      await tx.query(
        'update public.workspace_members set role = $3 where workspace_id = $1 and user_id = $2',
        [workspaceId, userId, role],
      )
    },

    /** Adds a member; false when they were one already. */
    async addMember(
      tx: SqlQueryable,
      workspaceId: string,
      userId: string,
      role: WorkspaceRole,
    ): Promise<boolean> {
      const result = await tx.query(
        `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)
         on conflict (workspace_id, user_id) do nothing`,
        [workspaceId, userId, role],
      )
      return result.rowCount > 0
    },

    async removeMember(tx: SqlQueryable, workspaceId: string, userId: string): Promise<void> {
      await tx.query(
        'delete from public.workspace_members where workspace_id = $1 and user_id = $2',
        [workspaceId, userId],
      )
    },
  }
}
