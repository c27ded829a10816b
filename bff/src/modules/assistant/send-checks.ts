/**
 * The checks a send passes before the model is asked (docs/decisions/008): the rate limit,
 * the conversation, moderation and the hold of its tokens; then its question is stored. A send
 * refused at any step holds nothing and stores nothing.
 */
import { ApiError } from '@tessera/contracts'
import type { AssistantModel } from '@tessera/contracts'
import { ApiErrorWithHeaders } from '../../platform/errors.ts'
import { nextTurn } from '../../platform/next-turn.ts'
import { localLimiters, rateLimitHeaders, rateLimited } from '../../platform/rate-limiter.ts'
import type { RateDecision } from '../../platform/rate-limiter.ts'
import { reservationFor } from './estimate.ts'
import type { PromptMessage } from './estimate.ts'
import { modelFailureOf } from './model.ts'
import { usagePeriodOf } from './period.ts'
import type { Quota } from './quota.ts'
import { openingOf, SYSTEM_PROMPT } from './send.ts'
import type { AssistantDeps, PreparedSend, Sender } from './send.ts'
import type { AssistantStore } from './store.ts'
import { titleFrom } from './store.ts'
import { usageOf } from './usage-events.ts'
import { isReadable, readOnly } from './conversation-sharing.ts'
import { createTeamSendChecks } from './team-send-checks.ts'
import { chooseModel, priorityOf } from './model-choice.ts'
import { questionWith } from '../attachments/prompt.ts'
import type { SendBranch } from './branches.ts'

export interface SendInput {
  conversationId: string
  content: string
  requestId: string
  /** The model asked for; absent: the conversation's last one, or the plan's default. */
  model?: AssistantModel
  /** Uploaded files sent with the message (attachments/). */
  attachmentIds?: string[]
  /** The question as the model gets it, when it is more than `content` (attachments). */
  question?: PromptMessage
  /** An edit or a regenerate (branches.ts): the history is the path before its question. */
  branch?: SendBranch
}

export function createSendChecks(
  deps: AssistantDeps & {
    store: AssistantStore
    quota: Quota
  },
) {
  const { model, clock, logger, settings, store, quota } = deps
  const limiters = deps.limiters ?? localLimiters(clock)
  const limiter = limiters({ name: 'chat', limit: settings.ratePerMinute, windowMs: 60_000 })
  const team = createTeamSendChecks(deps)

  /** Gives back a hold nothing was sent for. */
  async function releaseHold(reservationId: string, requestId: string): Promise<void> {
    try {
      await quota.settle(reservationId, 0)
    } catch (error) {
      // The sweep of abandoned holds gives it back later; the refusal itself still stands.
      logger.error('could not release a hold', { error, requestId })
    }
  }

  /**
   * Finds the conversation and holds the send's tokens: everything a send needs but moderation.
   * The history is read (as the user) while the hold is taken (the quota reads the same history
   * for its bound), not one after the other: both are on the way to the first token.
   */
  async function hold(sender: Sender, input: SendInput): Promise<PreparedSend> {
    const period = usagePeriodOf(clock.now())
    const bounds = { messages: settings.historyMessages, chars: settings.historyChars }
    const system: PromptMessage = { role: 'system', content: SYSTEM_PROMPT }
    const question: PromptMessage = input.question ?? { role: 'user', content: input.content }
    const entitled = deps.entitlementsForUser(sender.claims)
    const beforeId = input.branch?.beforeId ?? null
    const loading = store.loadForSend(sender.claims, input.conversationId, bounds, beforeId)
    const reserving = entitled.then((entitlements) => {
      // A model the plan does not include is refused before anything is held.
      if (input.model !== undefined) chooseModel(entitlements, input.model, null)
      return quota.reserve({
        userId: sender.userId,
        period,
        limit: entitlements.monthlyTokens,
        tokens: reservationFor([system, question], settings.maxAnswerTokens),
        history: { conversationId: input.conversationId, bounds, beforeId },
      })
    })
    const [entitlements, loaded, reserved] = await Promise.allSettled([
      entitled,
      loading,
      reserving,
    ])
    // Whatever else failed, a hold that was taken is given back.
    const taken = reserved.status === 'fulfilled' && reserved.value.ok ? reserved.value : null
    const refuse = async (error: unknown): Promise<never> => {
      if (taken !== null) await releaseHold(taken.id, input.requestId)
      throw error
    }
    if (entitlements.status === 'rejected') return refuse(entitlements.reason)
    if (loaded.status === 'rejected') return refuse(loaded.reason)
    if (loaded.value === null)
      return refuse(
        (await isReadable(deps.sql, sender.claims, input.conversationId))
          ? readOnly()
          : new ApiError('not_found'),
      )
    if (loaded.value.workspaceId !== null) {
      // A workspace's conversation: the personal hold was not taken (quota.ts); the pool's is.
      if (taken !== null) await releaseHold(taken.id, input.requestId)
      return team.hold(sender, input, { ...loaded.value, workspaceId: loaded.value.workspaceId })
    }
    if (reserved.status === 'rejected') throw reserved.reason
    const messages: PromptMessage[] = [system, ...loaded.value.history, question]
    const limit = entitlements.value.monthlyTokens
    const tokens = reservationFor(messages, settings.maxAnswerTokens)
    let reservation = reserved.value
    if (reservation.ok && reservation.tokens < tokens) {
      // The history grew between the two reads (a send from another tab): hold what is sent.
      await releaseHold(reservation.id, input.requestId)
      reservation = await quota.reserve({ userId: sender.userId, period, limit, tokens })
    }
    if (!reservation.ok) {
      throw new ApiErrorWithHeaders('quota_exceeded', {
        details: { ...usageOf(reservation.counters, limit, period), requested: tokens },
        // The allowance comes back with the next period.
        headers: {
          'Retry-After': String(
            Math.max(1, Math.ceil((period.end.getTime() - clock.now()) / 1000)),
          ),
        },
      })
    }
    const modelName = chooseModel(entitlements.value, input.model, loaded.value.conversation.model)
    return {
      sender,
      requestId: input.requestId,
      conversationId: input.conversationId,
      content: input.content,
      model: modelName,
      priority: priorityOf(entitlements.value),
      messages,
      reservation: {
        id: reservation.id,
        tokens: reservation.tokens,
        counters: reservation.counters,
      },
      period,
      limit,
      opening: openingOf(
        {
          content: input.content,
          model: modelName,
          conversation: loaded.value.conversation,
          title: titleFrom(input.content),
        },
        new Date(clock.now()),
      ),
    }
  }

  function moderationFailure(error: unknown, requestId: string): ApiError {
    const failure = modelFailureOf(error)
    logger[failure.misconfigured ? 'error' : 'warn']('moderation failed', { error, requestId })
    return new ApiError(failure.code, {
      ...(failure.retryAfterSeconds === undefined
        ? {}
        : { details: { retryAfterSeconds: failure.retryAfterSeconds } }),
    })
  }

  /**
   * Stores the send's question and the answer's placeholder before the model is asked, so an
   * answer always has a place to be kept; a send that cannot be stored gives its hold back.
   */
  async function storeQuestion(prepared: PreparedSend): Promise<void> {
    try {
      await store.beginSend(prepared.sender.claims, {
        conversationId: prepared.conversationId,
        title: prepared.opening.conversation.title,
        user: prepared.opening.user,
        assistant: prepared.opening.assistant,
        ...(prepared.branch === undefined
          ? {}
          : {
              branch: {
                parentId: prepared.branch.parentId,
                regenerate: prepared.branch.question !== null,
              },
            }),
      })
    } catch (error) {
      await releaseHold(prepared.reservation.id, prepared.requestId)
      throw error
    }
    if (prepared.attachmentIds !== undefined && deps.attachments !== undefined)
      await deps.attachments
        .tie(prepared.sender, prepared.attachmentIds, prepared.opening.user.id)
        .catch((error: unknown) =>
          // The question is stored and the model gets the files; only the thread's chips are lost.
          logger.error('could not tie attachments to their message', {
            error,
            requestId: prepared.requestId,
          }),
        )
  }

  /** The send's attachments, read for the model, and the question they make (attachments/prompt.ts). */
  async function attach(sender: Sender, input: SendInput) {
    const ids = input.attachmentIds ?? []
    if (ids.length === 0) return null
    if (deps.attachments === undefined) throw new ApiError('attachment_unavailable')
    const attached = await deps.attachments.forSend(sender, ids)
    return { attached, question: questionWith(input.content, attached, settings.historyChars) }
  }

  return {
    releaseHold,

    /**
     * Checks a send, holds its tokens and stores its question, or refuses it: `rate_limited`,
     * `not_found`, `content_flagged` (or the moderation server's failure), `quota_exceeded`, in
     * that order. Moderation is a network round trip, so the database work runs meanwhile; the
     * question is stored only once both passed, and a hold taken for a flagged message is
     * released unused.
     *
     * The shared rate limit's statement runs beside them too (its round trip is not on the way
     * to the first token). A user this replica already knows to be over the limit is refused
     * before anything else is asked (the limiter remembers the database's refusal until the
     * window ends), so over the limit only a replica's first refused send a window is moderated
     * and held, and its hold is given back. Files are read only once the limit has passed.
     */
    async prepareSend(sender: Sender, input: SendInput): Promise<PreparedSend> {
      const hit = limiter.hit(sender.userId)
      let limiting: Promise<RateDecision>
      if (hit instanceof Promise && (input.attachmentIds ?? []).length === 0) {
        limiting = hit
      } else {
        const decision = await hit
        if (!decision.allowed) throw rateLimited(limiter, decision)
        limiting = Promise.resolve(decision)
      }
      const attaching = await attach(sender, input)
      if (attaching !== null) input = { ...input, question: attaching.question }
      // Moderation is the longest of the two (a round trip to another service): it starts first,
      // and its request is on the wire before the hold's statements are built. (The SDK takes a
      // few turns of promises to send it; this thread would spend them on the database first.)
      const moderating = settings.moderation
        ? model.moderate(input.content)
        : Promise.resolve(false)
      if (settings.moderation) await nextTurn()
      const [flagged, held, limited] = await Promise.allSettled([
        moderating,
        hold(sender, input),
        limiting,
      ])
      // A refusal gives back the hold, if one was taken.
      const refuse = async (error: unknown): Promise<never> => {
        if (held.status === 'fulfilled')
          await releaseHold(held.value.reservation.id, held.value.requestId)
        throw error
      }
      // The shared limiter never fails (it counts in the process instead); a refusal comes first.
      if (limited.status === 'rejected') return refuse(limited.reason)
      const decision = limited.value
      if (!decision.allowed) return refuse(rateLimited(limiter, decision))
      const quotaRefusal =
        held.status === 'rejected' &&
        held.reason instanceof ApiError &&
        ['quota_exceeded', 'member_cap_reached', 'team_quota_exceeded'].includes(held.reason.code)
      if (held.status === 'rejected' && !quotaRefusal) throw held.reason
      const refusal =
        flagged.status === 'rejected'
          ? moderationFailure(flagged.reason, input.requestId)
          : flagged.value
            ? new ApiError('content_flagged')
            : null
      if (refusal !== null) return refuse(refusal)
      if (held.status === 'rejected') throw held.reason
      let prepared: PreparedSend =
        limiter.policy === undefined
          ? held.value
          : { ...held.value, rateLimitHeaders: rateLimitHeaders(limiter.policy, decision) }
      if (attaching !== null) {
        const { ids, summaries } = attaching.attached
        const user = { ...prepared.opening.user, attachments: summaries }
        prepared = { ...prepared, attachmentIds: ids, opening: { ...prepared.opening, user } }
      }
      if (input.branch !== undefined) prepared = withBranch(prepared, input.branch)
      await storeQuestion(prepared)
      // The hold is announced with the stream's opening (answer-stream.ts), once the model's
      // request is on its way: publishing is a database write, and not one for the first token.
      return prepared
    },
  }
}

/** An edit or a regenerate: a regenerate's opening names the stored question it answers again. */
function withBranch(prepared: PreparedSend, branch: SendBranch): PreparedSend {
  const { question } = branch
  return {
    ...prepared,
    branch,
    opening: question === null ? prepared.opening : { ...prepared.opening, user: question },
  }
}
