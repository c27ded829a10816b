/**
 * The hold of a send in a team workspace's conversation (docs/decisions/027): the team's monthly
 * pool and the member's own cap, together (team-quota.ts). A past-due team sends nothing; a
 * refusal names the team, and who to ask: its owners and admins.
 */
import { ApiError } from '@tessera/contracts'
import type { AssistantModel } from '@tessera/contracts'
import { ApiErrorWithHeaders } from '../../platform/errors.ts'
import { reservationFor } from './estimate.ts'
import type { PromptMessage } from './estimate.ts'
import { usagePeriodOf } from './period.ts'
import type { UsagePeriod } from './period.ts'
import type { Quota, UsageCounters } from './quota.ts'
import { openingOf, SYSTEM_PROMPT } from './send.ts'
import type { AssistantDeps, PreparedSend, Sender } from './send.ts'
import type { StoredConversation } from './store.ts'
import { titleFrom } from './rows.ts'
import type { TeamReservation } from './team-quota.ts'
import { teamContacts, teamOf, whoToAsk } from './workspace-scope.ts'
import { chooseModel, priorityOf } from './model-choice.ts'

/** The refusal of a team workspace the sender is no longer a member of. */
function notAMember(): ApiError {
  return new ApiError('not_found', {
    message:
      'You are no longer a member of the workspace this conversation belongs to. Reload the page.',
    details: { reason: 'workspace_not_found' },
  })
}

export function createTeamSendChecks(deps: AssistantDeps & { quota: Quota }) {
  const { sql, clock, settings, quota } = deps

  async function refusalOf(
    refused: Extract<TeamReservation, { ok: false }>,
    workspaceId: string,
    requested: number,
    period: UsagePeriod,
  ): Promise<ApiError> {
    if (refused.refusal === 'not_member') return notAMember()
    const { name, admins } = await teamContacts(sql, workspaceId)
    const ask = whoToAsk(admins)
    const headers = {
      'Retry-After': String(Math.max(1, Math.ceil((period.end.getTime() - clock.now()) / 1000))),
    }
    const { member, pool } = refused.counters
    if (refused.refusal === 'cap') {
      return new ApiErrorWithHeaders('member_cap_reached', {
        message: `You have used the ${member.cap ?? 0} tokens ${name} lets you use this month. Ask ${ask} to raise your cap.`,
        details: { ...member, requested, workspace: name, admins },
        headers,
      })
    }
    return new ApiErrorWithHeaders('team_quota_exceeded', {
      message: `${name} has used its ${pool.limit} shared tokens for this month. Ask ${ask} to add seats or upgrade the plan.`,
      details: { pool, requested, workspace: name, admins },
      headers,
    })
  }

  return {
    /**
     * Holds a send's tokens in its conversation's team workspace, or refuses it:
     * `team_past_due`, `member_cap_reached`, `team_quota_exceeded`, `not_found` (no longer a
     * member). The history is known already (the conversation was read first), so the hold is
     * exactly what the model is sent, in one call.
     */
    async hold(
      sender: Sender,
      input: {
        conversationId: string
        content: string
        requestId: string
        model?: AssistantModel
        question?: PromptMessage
      },
      loaded: { conversation: StoredConversation; history: PromptMessage[]; workspaceId: string },
    ): Promise<PreparedSend> {
      const period = usagePeriodOf(clock.now())
      const { workspaceId } = loaded
      const [entitlements, team] = await Promise.all([
        deps.entitlementsForUser(sender.claims, workspaceId),
        teamOf(sql, workspaceId, sender.userId),
      ])
      if (team === null) throw notAMember()
      // Entitlements for another workspace (a billing that does not answer per workspace) say
      // nothing about this team's payment; its pool is then the plan's tokens.
      const forTeam = entitlements.workspace?.id === workspaceId
      if (forTeam && entitlements.pastDue) {
        const { admins } = await teamContacts(sql, workspaceId)
        throw new ApiError('team_past_due', {
          message: `${team.name}’s payment is past due, so nobody can send until it is fixed. Reading still works; ask ${whoToAsk(admins)} to update the payment method.`,
        })
      }
      const messages: PromptMessage[] = [
        { role: 'system', content: SYSTEM_PROMPT },
        ...loaded.history,
        input.question ?? { role: 'user', content: input.content },
      ]
      const tokens = reservationFor(messages, settings.maxAnswerTokens)
      const limit = entitlements.monthlyTokens
      // Before the hold: a model the team's plan does not include holds nothing.
      const model = chooseModel(entitlements, input.model, loaded.conversation.model)
      const reservation = await quota.team.reserve({
        workspaceId,
        userId: sender.userId,
        period,
        limit,
        tokens,
        model,
      })
      if (!reservation.ok) throw await refusalOf(reservation, workspaceId, tokens, period)
      const counters: UsageCounters = {
        used: reservation.counters.member.used,
        reserved: reservation.counters.member.reserved,
        team: reservation.counters,
      }
      return {
        sender,
        requestId: input.requestId,
        conversationId: input.conversationId,
        content: input.content,
        model,
        priority: priorityOf(entitlements),
        messages,
        reservation: { id: reservation.id, tokens: reservation.tokens, counters },
        period,
        limit,
        opening: openingOf(
          {
            content: input.content,
            model,
            conversation: loaded.conversation,
            title: titleFrom(input.content),
          },
          new Date(clock.now()),
        ),
      }
    },
  }
}
