// What team billing reads of workspaces (docs/decisions/026): a workspace's kind, the caller's
// role and its member count, pending invites, a session's current workspace, and the team
// subscriptions whose seats reconcile compares with the members. Billing's own SQL on the BFF's
// connection, so the workspaces module stays unaware of billing (it calls a hook, nothing more).
import { plans } from '@tessera/contracts'
import type { WorkspaceKind, WorkspaceRole } from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import { z } from 'zod/mini'
import type { BillingSubscriptionRow } from '../../platform/db/schema.ts'
import type { SubscriptionState } from './subscription-state.ts'

export interface TeamFacts {
  id: string
  name: string
  kind: WorkspaceKind
  /** The user's role; null when they are not a member. */
  role: WorkspaceRole | null
  members: number
}

const uuid = z.uuid()

/** The seats a team with this many members pays for: at least the Team plan's minimum. */
export function seatsFor(members: number): number {
  return Math.max(members, plans.team.minSeats)
}

/** A workspace, the user's role in it and its member count; null when it does not exist. */
export async function workspaceFacts(
  on: SqlQueryable,
  workspaceId: string,
  userId: string,
): Promise<TeamFacts | null> {
  const { rows } = await on.query<{
    id: string
    name: string
    kind: WorkspaceKind
    role: WorkspaceRole | null
    members: string | number
  }>(
    `select w.id, w.name, w.kind,
       (select m.role from public.workspace_members m
        where m.workspace_id = w.id and m.user_id = $2) as role,
       (select count(*) from public.workspace_members m where m.workspace_id = w.id) as members
     from public.workspaces w where w.id = $1`,
    [workspaceId, userId],
  )
  const row = rows[0]
  return row === undefined ? null : { ...row, members: Number(row.members) }
}

/** How many members the workspace has. */
export async function memberCount(on: SqlQueryable, workspaceId: string): Promise<number> {
  const { rows } = await on.query<{ n: string | number }>(
    'select count(*) as n from public.workspace_members where workspace_id = $1',
    [workspaceId],
  )
  return Number(rows[0]?.n ?? 0)
}

/**
 * The session's current workspace and its kind: the one it chose while the user is still a
 * member, else the user's personal one (null only when that is missing too).
 */
export async function currentWorkspaceOfSession(
  on: SqlQueryable,
  sessionId: string,
  userId: string,
): Promise<{ id: string; kind: WorkspaceKind } | null> {
  const { rows } = await on.query<{ id: string; kind: WorkspaceKind }>(
    `select w.id, w.kind from public.workspaces w
     where w.id = coalesce(
       (select s.workspace_id from public.bff_sessions s
        join public.workspace_members m on m.workspace_id = s.workspace_id and m.user_id = $2
        where s.id = $1 and s.user_id = $2),
       (select p.id from public.workspaces p where p.created_by = $2 and p.kind = 'personal'))`,
    [sessionId, userId],
  )
  return rows[0] ?? null
}

/** The user's personal workspace's id (null when it is somehow missing). */
export async function personalWorkspaceId(
  on: SqlQueryable,
  userId: string,
): Promise<string | null> {
  const { rows } = await on.query<{ id: string }>(
    `select id from public.workspaces where created_by = $1 and kind = 'personal'`,
    [userId],
  )
  return rows[0]?.id ?? null
}

/** Every subscription row of a workspace (any buyer, any status). */
export async function subscriptionsOfWorkspace(
  on: SqlQueryable,
  workspaceId: string,
): Promise<BillingSubscriptionRow[]> {
  const { rows } = await on.query<BillingSubscriptionRow>(
    'select * from public.billing_subscriptions where workspace_id = $1',
    [workspaceId],
  )
  return rows
}

/** The members' user ids and roles. */
export async function membersOf(
  on: SqlQueryable,
  workspaceId: string,
): Promise<{ userId: string; role: WorkspaceRole }[]> {
  const { rows } = await on.query<{ user_id: string; role: WorkspaceRole }>(
    'select user_id, role from public.workspace_members where workspace_id = $1',
    [workspaceId],
  )
  return rows.map((row) => ({ userId: row.user_id, role: row.role }))
}

/** Invites of the workspace still waiting for an answer and not expired at `now`. */
export async function pendingInviteCount(
  on: SqlQueryable,
  workspaceId: string,
  now: Date,
): Promise<number> {
  const { rows } = await on.query<{ n: string | number }>(
    `select count(*) as n from public.workspace_invites
     where workspace_id = $1 and accepted_at is null and declined_at is null
       and revoked_at is null and expires_at > $2`,
    [workspaceId, now],
  )
  return Number(rows[0]?.n ?? 0)
}

/**
 * The state with its workspace checked: a metadata value that is not a team workspace's id (a
 * typo, a deleted team, someone else's metadata) is dropped, and named in `unknown` to be logged.
 */
export async function resolveWorkspace(
  on: SqlQueryable,
  state: SubscriptionState,
): Promise<{ state: SubscriptionState; unknown: string | null }> {
  const id = state.workspaceId
  if (id === null) return { state, unknown: null }
  if (uuid.safeParse(id).success) {
    const { rows } = await on.query(
      `select 1 from public.workspaces where id = $1 and kind = 'team'`,
      [id],
    )
    if (rows.length > 0) return { state, unknown: null }
  }
  return { state: { ...state, workspaceId: null }, unknown: id }
}

/** A team's subscription whose seats reconcile compares with the member count. */
export interface SeatTarget {
  subscriptionId: string
  customerId: string
  userId: string
  workspaceId: string
  quantity: number
  members: number
}

/** Stored Team subscriptions that grant access, with their workspace's member count. */
export async function seatTargets(on: SqlQueryable): Promise<SeatTarget[]> {
  const { rows } = await on.query<{
    stripe_subscription_id: string
    stripe_customer_id: string
    user_id: string
    workspace_id: string
    quantity: number
    members: string | number
  }>(
    `select s.stripe_subscription_id, s.stripe_customer_id, s.user_id, s.workspace_id, s.quantity,
       (select count(*) from public.workspace_members m where m.workspace_id = s.workspace_id)
         as members
     from public.billing_subscriptions s
     where s.workspace_id is not null and s.plan = 'team'
       and s.status in ('trialing', 'active', 'past_due')
     order by s.stripe_subscription_id`,
  )
  return rows.map((row) => ({
    subscriptionId: row.stripe_subscription_id,
    customerId: row.stripe_customer_id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    quantity: row.quantity,
    members: Number(row.members),
  }))
}
