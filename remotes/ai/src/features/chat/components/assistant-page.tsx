import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react'
import { startingMessage } from '../chat-state.ts'
import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform, useRoute } from '@tessera/plugin-react/platform'
import { createAssistantApi } from '../../../lib/assistant-api.ts'
import { assistantRoutes, billingPlansPath, conversationIdOf } from '../../../lib/paths.ts'
import { Composer } from '../../composer/components/composer.tsx'
import { ModelPicker, withModel, useModelChoice } from '../../composer/components/model-picker.tsx'
import { useAttachmentDraft } from '../../attachments/use-attachment-draft.ts'
import { ConversationHeader } from '../../conversations/components/conversation-header.tsx'
import { ConversationList } from '../../conversations/components/conversation-list.tsx'
import { ConversationSearch } from '../../search/components/conversation-search.tsx'
import { UsageBar, UsageMeter, usageSentence } from '../../usage/components/usage-meter.tsx'
import { usageLevel, useUsage } from '../../usage/use-usage.ts'
import { ChatStore } from '../chat-store.ts'
import { isFollowing } from '../live-answers.ts'
import { useFillViewport } from '../use-fill-viewport.ts'
import { useSidePanel } from '../use-side-panel.ts'
import { messageActions } from '../branch-actions.ts'
import { FailurePanel } from './failure-panel.tsx'
import { LimitReached } from './limit-reached.tsx'
import { MessageThread, type ThreadControl } from './message-thread.tsx'
import { Welcome } from './welcome.tsx'
import '../../../styles/controls.css'
import '../assistant.css'
import '../conversation.css'
import '../messages.css'
import '../assistant-small-screens.css'
import { Icon } from '../../../lib/icon.tsx'

/**
 * `/assistant` and `/assistant/conversations/:id`: the conversation list, the open conversation
 * with its streaming answer, the composer, and the month's token usage.
 */
export default function AssistantPage() {
  const platform = usePlatform()
  const attachmentDraft = useAttachmentDraft(platform.api.baseUrl)
  const route = useRoute()
  const routeId = conversationIdOf(route)
  const usage = useUsage()
  const reloadUsage = usage.reload

  const store = useMemo(
    () =>
      new ChatStore({
        api: withModel(createAssistantApi(platform), platform),
        openConversation: (id) =>
          platform.navigate(
            id === null
              ? platform.basePath
              : `${platform.basePath}${assistantRoutes.conversation(id)}`,
          ),
        onSendSettled: () => reloadUsage(),
        events: platform.events,
      }),
    [platform, reloadUsage],
  )
  useEffect(() => store.attach(), [store])
  const state = useSyncExternalStore(store.subscribe, store.getState)

  useEffect(() => {
    void store.loadList()
  }, [store])

  useEffect(() => {
    if (typeof routeId === 'string') void store.open(routeId)
  }, [store, routeId])

  const [draft, setDraft] = useState('')
  const { panelOpen, setPanelOpen, closePanel, panelToggleRef, newButtonRef } = useSidePanel()
  const rootRef = useRef<HTMLDivElement>(null)
  const headingRef = useRef<HTMLHeadingElement>(null)
  const textareaRef = useRef<HTMLTextAreaElement>(null)
  const threadControl = useRef<ThreadControl | null>(null)
  const panelId = useId()
  useFillViewport(rootRef)

  const currentId = typeof routeId === 'string' ? routeId : null
  const thread = currentId === null ? undefined : state.threads[currentId]
  // The new-conversation page's first message: on its way, or refused.
  const starting = routeId === null ? state.starting : null
  // Sending here, following an answer from another tab (or before a reload), or starting.
  const sending =
    thread?.sending != null || isFollowing(thread) || (starting !== null && !starting.failure)
  const actions = useMemo(
    () => (currentId === null ? undefined : messageActions(store, currentId)),
    [store, currentId],
  )
  const liveId = sending
    ? (thread?.messages.find((m) => m.role === 'assistant' && m.status === 'streaming')?.id ?? null)
    : null
  const streamingIds = useMemo(
    () =>
      new Set(
        Object.values(state.threads)
          .filter((t) => t.sending !== null)
          .map((t) => t.id),
      ),
    [state.threads],
  )

  // Moving between conversations: focus goes to the title, as a page load would put it at the
  // top, and the draft of one conversation does not follow into another.
  const previousRoute = useRef(route)
  /** The first message of a new conversation is moving the page to it: the composer keeps focus. */
  const arrivingFromNew = useRef(false)
  useEffect(() => {
    if (previousRoute.current === route) return
    previousRoute.current = route
    if (arrivingFromNew.current) {
      arrivingFromNew.current = false
      return
    }
    setDraft('')
    if (routeId === null) textareaRef.current?.focus()
    else headingRef.current?.focus({ preventScroll: true })
  }, [route, routeId])

  const usageState = usage.state
  const limitReached =
    usageState.status === 'ready' && usageLevel(usageState.usage).level === 'reached'

  const send = (text: string) => {
    const content = text.trim()
    if (content === '') return
    setDraft('')
    threadControl.current?.toLatest()
    arrivingFromNew.current = currentId === null
    void store.send(currentId, content, attachmentDraft.take()).then((outcome) => {
      if (outcome === 'sent') return
      arrivingFromNew.current = false
      // Stopped before it left: the text comes back to the composer. (A refusal keeps it in the
      // thread, marked "Not sent", with the reason and Try again.)
      if (outcome === 'cancelled') setDraft((current) => (current === '' ? content : current))
    })
  }

  const stop = () => {
    store.stop(currentId)
    textareaRef.current?.focus()
  }

  const editFailed = () => {
    if (currentId === null) return
    setDraft(store.takeBack(currentId))
    textareaRef.current?.focus()
  }

  const newConversation = useCallback(() => {
    setPanelOpen(false)
    platform.navigate(platform.basePath)
    textareaRef.current?.focus()
  }, [platform, setPanelOpen])

  const title =
    routeId === null
      ? 'New conversation'
      : routeId === undefined
        ? 'Conversation not found'
        : (thread?.conversation?.title ??
          state.list.conversations.find((c) => c.id === currentId)?.title ??
          'Conversation')

  const conversation =
    thread?.conversation ?? state.list.conversations.find((c) => c.id === currentId) ?? null
  // Another member's shared conversation: readable here, never written (the BFF refuses too).
  const sharedBy = conversation?.sharedBy ?? undefined
  const modelChoice = useModelChoice(currentId ?? 'new', conversation)
  const inTeam = usageState.status === 'ready' && usageState.usage.pool !== undefined
  const blocked =
    sharedBy !== undefined ? (
      <p>{sharedBy} shared this conversation for reading. Start your own to ask the assistant.</p>
    ) : (
      limitReached &&
      usageState.status === 'ready' && (
        <LimitReached limit={usageState.usage.limit} resetsOn={usageState.usage.periodEnd} />
      )
    )

  return (
    <div ref={rootRef} className={panelOpen ? 'assistant assistant--panel-open' : 'assistant'}>
      <p className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
        {state.announcement.text}
      </p>
      <aside id={panelId} className="assistant__side" aria-label="Conversations">
        <div className="assistant__side-head">
          <button
            ref={newButtonRef}
            type="button"
            className="button button--primary assistant__new"
            onClick={newConversation}
          >
            <Icon d="M12 5v14M5 12h14" strokeWidth={2.2} />
            New conversation
          </button>
          <button
            type="button"
            className="button button--quiet button--small assistant__side-close"
            onClick={() => closePanel(true)}
          >
            Close
          </button>
        </div>
        <ConversationSearch onChoose={() => closePanel(false)} />
        <nav className="conversations" aria-label="Your conversations">
          <ConversationList
            list={state.list}
            currentId={currentId}
            streamingIds={streamingIds}
            onLoadMore={() => void store.loadMore()}
            onRetry={() => void store.loadList()}
            onChoose={() => closePanel(false)}
          />
        </nav>
        <div className="assistant__usage">
          <UsageMeter state={usageState} onRetry={usage.reload} />
          {inTeam && (
            <AppLink to={`${platform.basePath}${assistantRoutes.teamUsage}`}>Team usage</AppLink>
          )}
        </div>
      </aside>
      {panelOpen && (
        <div className="assistant__backdrop" aria-hidden="true" onClick={() => closePanel(true)} />
      )}

      <div className="assistant__main" inert={panelOpen}>
        <ConversationHeader
          key={currentId ?? 'new'}
          title={title}
          headingRef={headingRef}
          start={
            <button
              ref={panelToggleRef}
              type="button"
              className="button button--secondary button--small assistant__panel-toggle"
              aria-expanded={panelOpen}
              aria-controls={panelId}
              onClick={() => setPanelOpen((open) => !open)}
            >
              <Icon d="M4 6h16M4 12h16M4 18h10" />
              <span className="visually-hidden">Conversations</span>
            </button>
          }
          {...(sharedBy === undefined ? {} : { sharedBy })}
          {...(currentId !== null && sharedBy === undefined && inTeam && conversation !== null
            ? {
                share: {
                  shared: conversation.shared === true,
                  set: (next: boolean) => store.share(currentId, next),
                },
              }
            : {})}
          {...(currentId !== null && thread?.status !== 'failed' && sharedBy === undefined
            ? {
                actions: {
                  id: currentId,
                  rename: (next: string) => store.rename(currentId, next),
                  remove: async () => {
                    const failure = await store.remove(currentId)
                    if (failure === null) {
                      platform.notify({ kind: 'success', message: 'The conversation was deleted.' })
                      platform.navigate(platform.basePath)
                    }
                    return failure
                  },
                },
              }
            : {})}
        />

        {routeId === undefined ? (
          <div className="assistant__message">
            <p>There is no conversation at this address.</p>
            <p>
              <AppLink to={platform.basePath}>Start a new conversation</AppLink>
            </p>
          </div>
        ) : (
          <MessageThread
            conversationKey={currentId ?? 'new'}
            controlRef={threadControl}
            messages={
              thread?.messages ??
              (starting ? [startingMessage(starting.content, starting.failure !== null)] : [])
            }
            liveId={liveId}
            waiting={sending && liveId === null}
            failureShown={thread?.failure != null}
            actions={sending || sharedBy !== undefined ? undefined : actions}
            empty={
              currentId === null ? (
                <Welcome
                  onPick={(text) => {
                    setDraft(text)
                    textareaRef.current?.focus()
                  }}
                />
              ) : thread === undefined || thread.status === 'loading' ? (
                <p className="thread__status muted" role="status">
                  <span className="spinner" aria-hidden="true" /> Loading the conversation…
                </p>
              ) : thread.status === 'failed' && thread.loadError ? (
                <FailurePanel
                  error={thread.loadError}
                  usage={null}
                  onRetry={() => void store.open(currentId, { force: true })}
                  onEdit={() => textareaRef.current?.focus()}
                  onNewConversation={newConversation}
                />
              ) : (
                <p className="thread__status muted">No messages yet. Write the first one below.</p>
              )
            }
            after={
              thread?.failure ? (
                <FailurePanel
                  error={thread.failure.error}
                  usage={usageState.status === 'ready' ? usageState.usage : null}
                  onRetry={() => {
                    threadControl.current?.toLatest()
                    void store.retry(thread.id)
                  }}
                  onEdit={editFailed}
                  onNewConversation={newConversation}
                />
              ) : starting?.failure ? (
                <FailurePanel
                  error={starting.failure}
                  usage={usageState.status === 'ready' ? usageState.usage : null}
                  onRetry={() => {
                    arrivingFromNew.current = true
                    void store.retryStart().then((outcome) => {
                      if (outcome !== 'sent') arrivingFromNew.current = false
                    })
                  }}
                  onEdit={() => {
                    setDraft(store.takeBackStart())
                    textareaRef.current?.focus()
                  }}
                  onNewConversation={newConversation}
                />
              ) : null
            }
          />
        )}

        {routeId !== undefined && (
          <div className="assistant__composer">
            {usageState.status === 'ready' && (
              <p className="assistant__usage-inline">
                <UsageBar usage={usageState.usage} decorative />
                <span>{usageSentence(usageState.usage)}</span>
                {usageLevel(usageState.usage).level !== 'ok' && (
                  <AppLink to={billingPlansPath}>See plans</AppLink>
                )}
              </p>
            )}
            <Composer
              value={draft}
              onValue={setDraft}
              onSend={send}
              onStop={stop}
              sending={sending}
              blocked={blocked || undefined}
              textareaRef={textareaRef}
              picker={sharedBy === undefined && <ModelPicker choice={modelChoice} />}
              attachments={attachmentDraft}
            />
          </div>
        )}
      </div>
    </div>
  )
}
