// Team billing (docs/decisions/026): a team workspace's subscription as its members see it
// (entitlements with the pool, the subscription by role), its seats following the member count,
// the extra-seat confirmation of invites, and the live events that tell every member.
import {
  ApiError,
  ENTITLEMENTS_EVENT_TYPE,
  SUBSCRIPTION_EVENT_TYPE,
  plans,
} from '@tessera/contracts'
import type {
  Entitlements,
  PlanId,
  SeatPreview,
  SubscriptionResponse,
  SubscriptionStatus,
  WorkspaceRole,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type Stripe from 'stripe'
import type { Clock } from '../../platform/clock.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import { SeatChangeError, previewSeatChange, setSeatQuantity } from './seats.ts'
import type { UsersChanged } from '../workspaces/session-contexts.ts'
import { granting, pickCurrent, teamEntitlements, teamSubscriptionResponse } from './team-state.ts'
import type { TeamPlanFacts } from './team-state.ts'
import {
  memberCount,
  membersOf,
  pendingInviteCount,
  seatsFor,
  subscriptionsOfWorkspace,
  workspaceFacts,
} from './team-store.ts'

export interface TeamBillingDeps {
  sql: Sql
  /** The background client: members changing waits on nobody. */
  stripe: Stripe
  /** The interactive client, for previews a person waits for. */
  interactive: Stripe
  bus: EventBus
  clock: Clock
  logger: Logger
  /** Delays before each retry of a transient seat-change failure (ms). */
  retryDelaysMs?: readonly number[]
  sleep?: (ms: number) => Promise<void>
  /** Drops what every replica keeps of these users' workspaces (workspaces/session-contexts). */
  usersChanged?: UsersChanged | undefined
}

export type TeamBilling = ReturnType<typeof createTeamBilling>

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function createTeamBilling(deps: TeamBillingDeps) {
  const { sql, bus, clock, logger } = deps
  const retryDelays = deps.retryDelaysMs ?? [250, 1000, 4000]
  const sleep = deps.sleep ?? defaultSleep
  // One seat sync per workspace at a time in this process: each counts the members after the
  // one before it has set the seats, so the last count wins (reconcile covers other replicas).
  const syncing = new Map<string, Promise<void>>()

  /** The team's current subscription (the BFF's connection: any buyer's rows). */
  const currentOf = async (on: SqlQueryable, workspaceId: string) =>
    pickCurrent(
      (await subscriptionsOfWorkspace(on, workspaceId)).map((row): TeamPlanFacts => ({
        subscriptionId: row.stripe_subscription_id,
        plan: row.plan,
        status: row.status,
        quantity: row.quantity,
        createdAt: row.stripe_created_at,
        currentPeriodEnd: row.current_period_end,
        cancelAt: row.cancel_at,
        canceledAt: row.canceled_at,
      })),
    )

  /** The per-seat subscription that grants the team access, if any. */
  const seatSubscription = async (on: SqlQueryable, workspaceId: string) => {
    const current = await currentOf(on, workspaceId)
    if (current?.subscriptionId == null || !granting.has(current.status)) return null
    if (!plans[current.plan].perSeat) return null
    return { ...current, subscriptionId: current.subscriptionId }
  }

  /** Reads as the user: the role, and what `workspace_subscription` lets a member see. */
  const readAsMember = (claims: UserClaims, workspaceId: string) =>
    withUser(
      sql,
      claims,
      async (tx) => {
        const { rows } = await tx.query<{ kind: string; role: WorkspaceRole | null }>(
          'select kind, public.workspace_role(id) as role from public.workspaces where id = $1',
          [workspaceId],
        )
        const found = rows[0]
        if (found === undefined || found.role === null) return null
        if (found.kind !== 'team') return 'personal' as const
        const subscriptions = await tx.query<{
          plan: PlanId
          status: SubscriptionStatus
          quantity: number
          stripe_created_at: Date
        }>('select * from public.workspace_subscription($1)', [workspaceId])
        const current = pickCurrent(
          subscriptions.rows.map((row) => ({ ...row, createdAt: new Date(row.stripe_created_at) })),
        )
        return { role: found.role, current }
      },
      { readOnly: true },
    )

  /** Tells every member the team's entitlements and subscription, as their role sees them. */
  const publishTeam = async (workspaceId: string, tx?: SqlQueryable): Promise<void> => {
    const on = tx ?? sql
    const current = await currentOf(on, workspaceId)
    const members = await membersOf(on, workspaceId)
    await deps.usersChanged?.(
      members.map((member) => member.userId),
      tx,
    )
    for (const member of members) {
      const entitlements = teamEntitlements(workspaceId, member.role, current)
      const topic = userTopic(member.userId)
      await bus.publish(
        {
          topic,
          event: createLiveEvent(
            SUBSCRIPTION_EVENT_TYPE,
            teamSubscriptionResponse(entitlements, current, member.role),
            clock,
          ),
        },
        tx,
      )
      await bus.publish(
        { topic, event: createLiveEvent(ENTITLEMENTS_EVENT_TYPE, { entitlements }, clock) },
        tx,
      )
    }
  }

  /**
   * Sets the seats to the member count, retrying transient failures with the same key;
   * `attempted` runs once the first attempt is over (the caller waits for no more than that).
   */
  const setSeats = async (workspaceId: string, attempted: () => void): Promise<void> => {
    const subscription = await seatSubscription(sql, workspaceId)
    if (subscription === null) return
    const seats = seatsFor(await memberCount(sql, workspaceId))
    if (seats === subscription.quantity) return
    // One key per change (this call): its retries never apply it twice, and a later change back
    // to the same count is a change of its own.
    const key = `tessera-seats-${subscription.subscriptionId}-${seats}-${crypto.randomUUID()}`
    for (let attempt = 0; ; attempt++) {
      try {
        const change = await setSeatQuantity(deps.stripe, subscription.subscriptionId, seats, key)
        logger.info('team seats set', {
          workspaceId,
          subscriptionId: subscription.subscriptionId,
          from: change.previousQuantity,
          to: change.quantity,
        })
        return
      } catch (error) {
        attempted()
        const transient = error instanceof SeatChangeError && error.transient
        const delay = retryDelays[attempt]
        if (!transient || delay === undefined) {
          logger.error('team seats not set; billing:reconcile will correct them', {
            error,
            workspaceId,
            subscriptionId: subscription.subscriptionId,
            seats,
            attempts: attempt + 1,
          })
          return
        }
        await sleep(delay)
      }
    }
  }

  return {
    publishTeam,

    /**
     * The entitlements in a team workspace; `personal` for the user's personal one, null for a
     * workspace they are not a member of.
     */
    async entitlements(
      claims: UserClaims,
      workspaceId: string,
    ): Promise<Entitlements | 'personal' | null> {
      const read = await readAsMember(claims, workspaceId)
      if (read === null || read === 'personal') return read
      return teamEntitlements(workspaceId, read.role, read.current)
    },

    /** The team's subscription as the user's role sees it (`personal`, null: as above). */
    async subscription(
      claims: UserClaims,
      workspaceId: string,
    ): Promise<SubscriptionResponse | 'personal' | null> {
      const read = await readAsMember(claims, workspaceId)
      if (read === null || read === 'personal') return read
      const entitlements = teamEntitlements(workspaceId, read.role, read.current)
      // Owners and admins: the dates too, read as the user (RLS lets them read the rows).
      const current =
        read.role === 'member'
          ? null
          : await withUser(sql, claims, (tx) => currentOf(tx, workspaceId), { readOnly: true })
      return teamSubscriptionResponse(
        entitlements,
        current ??
          (read.current === null
            ? null
            : {
                ...read.current,
                subscriptionId: null,
                currentPeriodEnd: null,
                cancelAt: null,
                canceledAt: null,
              }),
        read.role,
      )
    },

    /**
     * The `onMembersChanged` seam: the seats follow the members. Resolves once the first
     * attempt is over (never rejects); the retries of a transient failure go on behind it.
     */
    async membersChanged(workspaceId: string): Promise<void> {
      let attempted = (): void => undefined
      const first = new Promise<void>((resolve) => {
        attempted = resolve
      })
      const previous = syncing.get(workspaceId) ?? Promise.resolve()
      const next: Promise<void> = previous
        .then(() => setSeats(workspaceId, attempted))
        .catch((error: unknown) => {
          logger.error('team seats not set; billing:reconcile will correct them', {
            error,
            workspaceId,
          })
        })
        .finally(() => {
          attempted()
          if (syncing.get(workspaceId) === next) syncing.delete(workspaceId)
        })
      syncing.set(workspaceId, next)
      await first
    },

    /** Resolves when no seat change (nor its retries) is under way here, in this BFF. */
    async settled(): Promise<void> {
      while (syncing.size > 0) await Promise.all([...syncing.values()])
    },

    /**
     * The invite hook: in the invite's transaction (the workspace locked), refuses an invite that
     * would need a seat the team does not pay for yet, unless the inviter confirmed it.
     */
    async checkInviteSeat(
      tx: SqlQueryable,
      workspaceId: string,
      confirmed: boolean,
    ): Promise<void> {
      const subscription = await seatSubscription(tx, workspaceId)
      if (subscription === null) return
      const members = await memberCount(tx, workspaceId)
      const pending = await pendingInviteCount(tx, workspaceId, new Date(clock.now()))
      const needed = members + pending + 1
      if (needed <= subscription.quantity || confirmed) return
      let preview: Pick<SeatPreview, 'prorationAmount' | 'nextInvoiceTotal' | 'currency'> | null
      try {
        const found = await previewSeatChange(deps.interactive, subscription.subscriptionId, needed)
        preview = {
          prorationAmount: found.prorationAmount,
          nextInvoiceTotal: found.nextInvoiceTotal,
          currency: found.currency,
        }
      } catch (error) {
        logger.warn('seat preview for an invite failed', { error, workspaceId })
        preview = null
      }
      throw new ApiError('seat_confirmation_required', {
        details: { seats: subscription.quantity, needed, preview },
      })
    },

    /** What the team's next invoice would be with `quantity` seats (owners and admins). */
    /** Refuses a Team checkout the user may not start here; the seats it would buy. */
    async teamCheckout(
      userId: string,
      workspaceId: string | null,
    ): Promise<{ workspaceId: string; quantity: number }> {
      const facts = workspaceId === null ? null : await workspaceFacts(sql, workspaceId, userId)
      if (workspaceId === null) {
        throw new ApiError('plan_not_for_workspace', {
          details: { reason: 'team_workspace_required' },
        })
      }
      if (facts === null || facts.role === null) throw new ApiError('not_found')
      if (facts.kind !== 'team') {
        throw new ApiError('plan_not_for_workspace', {
          details: { reason: 'team_workspace_required' },
        })
      }
      if (facts.role === 'member') {
        throw new ApiError('workspace_role_required', { details: { reason: 'billing' } })
      }
      const current = await currentOf(sql, workspaceId)
      if (current !== null && granting.has(current.status) && current.plan !== 'free')
        throw new ApiError('already_subscribed')
      return { workspaceId, quantity: seatsFor(facts.members) }
    },

    /** Refuses Pro for a team: Pro is bought for the buyer's personal workspace. */
    async personalCheckout(userId: string, workspaceId: string | undefined): Promise<void> {
      if (workspaceId === undefined) return
      const facts = await workspaceFacts(sql, workspaceId, userId)
      if (facts === null || facts.role === null) throw new ApiError('not_found')
      if (facts.kind === 'team')
        throw new ApiError('plan_not_for_workspace', { details: { reason: 'personal_plan' } })
    },

    async previewSeats(
      userId: string,
      workspaceId: string,
      quantity: number,
    ): Promise<SeatPreview> {
      const facts = await workspaceFacts(sql, workspaceId, userId)
      if (facts === null || facts.role === null) throw new ApiError('not_found')
      if (facts.kind !== 'team') {
        throw new ApiError('plan_not_for_workspace', {
          details: { reason: 'team_workspace_required' },
        })
      }
      if (facts.role === 'member') {
        throw new ApiError('workspace_role_required', { details: { reason: 'billing' } })
      }
      const subscription = await seatSubscription(sql, workspaceId)
      if (subscription === null) {
        throw new ApiError('not_found', { message: 'This team has no subscription to preview.' })
      }
      if (quantity < seatsFor(facts.members)) {
        throw new ApiError('validation_failed', {
          details: {
            issues: [
              {
                path: 'quantity',
                message: `A team of ${facts.members} pays for at least ${seatsFor(facts.members)} seats.`,
              },
            ],
          },
        })
      }
      let found
      try {
        found = await previewSeatChange(deps.interactive, subscription.subscriptionId, quantity)
      } catch (error) {
        if (error instanceof SeatChangeError && error.transient)
          throw new ApiError('upstream_unavailable', { details: { service: 'stripe' } })
        throw error
      }
      return {
        seats: subscription.quantity,
        quantity,
        members: facts.members,
        prorationAmount: found.prorationAmount,
        nextInvoiceTotal: found.nextInvoiceTotal,
        currency: found.currency,
        lines: found.lines.map((line) => ({
          ...line,
          periodStart: line.periodStart.toISOString(),
          periodEnd: line.periodEnd.toISOString(),
        })),
      }
    },
  }
}
