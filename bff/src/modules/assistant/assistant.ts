/**
 * The assistant: conversations, and sends that stream the model's answer while holding their
 * tokens against the plan (docs/decisions/008). A send is checked and its question stored
 * (send-checks.ts), then its answer streamed, stored and counted (answer-stream.ts).
 */
import { ApiError } from '@tessera/contracts'
import type { Usage, UsageReport, UsageReportQuery } from '@tessera/contracts'
import { createAnswerStream } from './answer-stream.ts'
import { requestStop } from './answer-stop.ts'
import { usagePeriodOf } from './period.ts'
import type { UsagePeriod } from './period.ts'
import { abandonedAfterMs, createQuota } from './quota.ts'
import type { Quota, UsageCounters } from './quota.ts'
import { createSendChecks } from './send-checks.ts'
import type { AssistantDeps, Sender } from './send.ts'
import { createAssistantStore } from './store.ts'
import type { AssistantStore, ConversationCursor } from './store.ts'
import { publishUsage, usageOf } from './usage-events.ts'
import { isReadable, readOnly, setShared } from './conversation-sharing.ts'
import { usageReport } from './usage-report.ts'
import { currentTeam } from './workspace-scope.ts'
import { findBranch, selectVersion } from './branches.ts'
import type { SendInput } from './send-checks.ts'

export type { AnswerSink, AssistantDeps, AssistantSettings, PreparedSend, Sender } from './send.ts'
export { SYSTEM_PROMPT } from './send.ts'

export function createAssistant(deps: AssistantDeps) {
  const { sql, bus, clock, logger } = deps
  const abandonedAfter = deps.settings.abandonedAfterMs ?? abandonedAfterMs
  const store: AssistantStore = createAssistantStore(sql, { abandonedAfterMs: abandonedAfter })
  const quota: Quota = createQuota(sql, { abandonedAfterMs: abandonedAfter })
  const announce = (sender: Sender, counters: UsageCounters, limit: number, period: UsagePeriod) =>
    publishUsage({ bus, clock, logger }, sender.userId, usageOf(counters, limit, period))
  const checks = createSendChecks({ ...deps, store, quota })
  const answers = createAnswerStream({
    ...deps,
    store,
    quota,
    announce,
    releaseHold: checks.releaseHold,
  })

  /** A write the caller's own conversation did not take: another member's shared one, or none. */
  const refuseWrite = async <T>(sender: Sender, id: string, none: T): Promise<T> => {
    if (await isReadable(sql, sender.claims, id)) throw readOnly()
    return none
  }

  return {
    store,
    quota,
    prepareSend: checks.prepareSend,
    runSend: answers.runSend,

    /**
     * An edit (`content`: the question's new text) or a regenerate (no content: its question
     * again), prepared exactly as a send is once the message it starts from is found (branches.ts).
     */
    async prepareBranch(
      sender: Sender,
      input: Omit<SendInput, 'content' | 'branch'> & { messageId: string; content?: string },
    ) {
      const { messageId, content, ...rest } = input
      const kind = content === undefined ? 'regenerate' : 'edit'
      const branch = await findBranch(sql, sender.claims, {
        conversationId: input.conversationId,
        messageId,
        kind,
        abandonedAfterMs: abandonedAfter,
      })
      return checks.prepareSend(sender, {
        ...rest,
        content: content ?? branch.question?.content ?? '',
        branch,
      })
    },
    /** Shows one version of a message; the conversation's messages as they now read. */
    async selectVersion(sender: Sender, conversationId: string, messageId: string) {
      await selectVersion(sql, sender.claims, { conversationId, messageId })
      const list = await store.listMessages(sender.claims, conversationId)
      if (list === null) throw new ApiError('not_found')
      return list
    },

    /** A new conversation, in the session's current workspace. */
    createConversation: async (sender: Sender, title: string | null) => {
      const team = await currentTeam(sql, sender.sessionId, sender.userId)
      return store.createConversation(sender.claims, title, team?.id ?? null)
    },
    /** The session's current workspace's conversations: the caller's, and those shared with it. */
    listConversations: async (
      sender: Sender,
      page: { limit: number; cursor: ConversationCursor | null },
    ) => {
      const team = await currentTeam(sql, sender.sessionId, sender.userId)
      return store.listConversations(sender.claims, page, team?.id ?? null)
    },
    /** Renames the author's conversation; null when the caller cannot see it. */
    renameConversation: async (sender: Sender, id: string, title: string) =>
      (await store.renameConversation(sender.claims, id, title)) ?? refuseWrite(sender, id, null),
    async deleteConversation(sender: Sender, id: string) {
      const deleted =
        (await store.deleteConversation(sender.claims, id)) || refuseWrite(sender, id, false)
      // Its attachments' rows went with it and queued their objects; removing them now keeps
      // Storage tidy at once (a failure leaves them queued for the background sweep).
      if ((await deleted) && deps.attachments !== undefined)
        await deps.attachments.sweepRemovals().catch((error: unknown) => {
          logger.warn('could not remove the objects of deleted attachments', { error })
        })
      return deleted
    },
    shareConversation: (sender: Sender, id: string, shared: boolean) =>
      setShared(sql, sender.claims, id, shared),
    async listMessages(sender: Sender, id: string) {
      const list = await store.listMessages(sender.claims, id)
      if (list === null || deps.attachments === undefined) return list
      return { ...list, messages: await deps.attachments.withAttachments(sender, list.messages) }
    },
    /** Stops the answers streaming in the author's conversation, on any replica (answer-stop.ts). */
    stopAnswers: (sender: Sender, id: string) => requestStop({ sql, bus, clock }, sender, id),

    /** A team's usage per member, model and day, for its owners and admins. */
    usageReport: (sender: Sender, query: UsageReportQuery): Promise<UsageReport> =>
      usageReport(
        sql,
        sender,
        query,
        usagePeriodOf(clock.now()),
        new Date(clock.now()),
        async (workspaceId) =>
          (await deps.entitlementsForUser(sender.claims, workspaceId)).monthlyTokens,
      ),

    /**
     * The user's usage this month, with the plan's limit; in a team workspace, their share of its
     * pool, their cap and the pool (usage-events.ts).
     */
    async usage(sender: Sender): Promise<Usage> {
      const period = usagePeriodOf(clock.now())
      const team = await currentTeam(sql, sender.sessionId, sender.userId)
      if (team !== null) {
        const entitlements = await deps.entitlementsForUser(sender.claims, team.id)
        const counters = await quota.team.read(
          sender.claims,
          team.id,
          period,
          entitlements.monthlyTokens,
        )
        return {
          ...usageOf(
            { used: counters.member.used, reserved: counters.member.reserved, team: counters },
            entitlements.monthlyTokens,
            period,
          ),
          workspace: { id: team.id, name: team.name },
        }
      }
      const [entitlements, counters] = await Promise.all([
        deps.entitlementsForUser(sender.claims),
        quota.read(sender.claims, period),
      ])
      return usageOf(counters, entitlements.monthlyTokens, period)
    },

    /**
     * Releases, uncharged, every hold older than any answer can stream: the holds of a BFF that
     * died mid-answer. Every BFF runs it every ASSISTANT_HOLD_SWEEP_SECONDS (bin/node.ts); the
     * tokens released.
     */
    async releaseAbandonedHolds(): Promise<number> {
      const released = await quota.releaseStale(null, abandonedAfter)
      if (released > 0) logger.info('released abandoned holds', { tokens: released })
      return released
    },
  }
}

export type Assistant = ReturnType<typeof createAssistant>
