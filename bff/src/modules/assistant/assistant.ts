/**
 * The assistant: conversations, and sends that stream the model's answer while holding their
 * tokens against the plan (docs/decisions/008). A send is checked and its question stored
 * (send-checks.ts), then its answer streamed, stored and counted (answer-stream.ts).
 */
import type { Usage } from '@tessera/contracts'
import { createAnswerStream } from './answer-stream.ts'
import { usagePeriodOf } from './period.ts'
import type { UsagePeriod } from './period.ts'
import { abandonedAfterMs, createQuota } from './quota.ts'
import type { Quota, UsageCounters } from './quota.ts'
import { createSendChecks } from './send-checks.ts'
import type { AssistantDeps, Sender } from './send.ts'
import { createAssistantStore } from './store.ts'
import type { AssistantStore, ConversationCursor } from './store.ts'
import { publishUsage, usageOf } from './usage-events.ts'

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

  return {
    store,
    quota,
    prepareSend: checks.prepareSend,
    runSend: answers.runSend,

    createConversation: (sender: Sender, title: string | null) =>
      store.createConversation(sender.claims, title),
    listConversations: (
      sender: Sender,
      page: { limit: number; cursor: ConversationCursor | null },
    ) => store.listConversations(sender.claims, page),
    renameConversation: (sender: Sender, id: string, title: string) =>
      store.renameConversation(sender.claims, id, title),
    deleteConversation: (sender: Sender, id: string) => store.deleteConversation(sender.claims, id),
    listMessages: (sender: Sender, id: string) => store.listMessages(sender.claims, id),

    /** The user's usage this month, with the plan's limit. */
    async usage(sender: Sender): Promise<Usage> {
      const period = usagePeriodOf(clock.now())
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
