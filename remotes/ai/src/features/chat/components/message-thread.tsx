import { useEffect, useId, useRef } from 'react'
import type { ReactNode, RefObject } from 'react'
import type { ChatMessage } from '@tessera/contracts/assistant'
import { useFollowScroll } from '../use-follow-scroll.ts'
import { MessageItem, ThinkingItem } from './message-item.tsx'
import { Icon } from '../../../lib/icon.tsx'
import type { MessageActions } from '../branch-actions.ts'

interface MessageThreadProps {
  messages: ChatMessage[]
  /** The id of the answer streaming now, if any. */
  liveId: string | null
  /** A message was sent and its answer has not started yet. */
  waiting?: boolean
  /** Shown before any message (the new-conversation welcome, a loading line). */
  empty?: ReactNode
  /** Shown after the last message (a failed send). */
  after?: ReactNode
  /** `after` explains what went wrong with the last answer. */
  failureShown?: boolean
  /** Changes when the conversation shown changes: the thread starts at its end again. */
  conversationKey: string
  /** Lets the page bring the thread to its end (after the person sends a message). */
  controlRef?: RefObject<ThreadControl | null>
  /** What the messages may do (edit, regenerate, versions); absent while streaming or read-only. */
  actions?: MessageActions | undefined
}

export interface ThreadControl {
  toLatest: (options?: { smooth?: boolean }) => void
}

/**
 * The messages of a conversation, oldest first, in their own scrolling area that follows the
 * answer as it streams unless the reader scrolled up ("Jump to latest" brings them back).
 */
export function MessageThread(props: MessageThreadProps) {
  // A new conversation is a new scroll position: remounting starts it at the end.
  return <Thread key={props.conversationKey} {...props} />
}

function Thread({
  messages,
  liveId,
  waiting,
  empty,
  after,
  failureShown = false,
  controlRef,
  actions,
}: MessageThreadProps) {
  const headingId = useId()
  const scrollRef = useRef<HTMLDivElement>(null)
  const last = messages.at(-1)
  const { following, toLatest } = useFollowScroll(
    scrollRef,
    `${messages.length}:${last?.id}:${last?.content.length}:${last?.status}:${waiting}:${after ? 1 : 0}`,
  )
  useEffect(() => {
    if (controlRef === undefined) return
    controlRef.current = { toLatest }
    return () => {
      controlRef.current = null
    }
  }, [controlRef, toLatest])

  return (
    <div className="thread">
      <h2 id={headingId} className="visually-hidden">
        Messages
      </h2>
      <div
        ref={scrollRef}
        className="thread__scroll"
        // Focusable so keyboard users can scroll it; labelled by the heading above.
        tabIndex={0}
        role="region"
        aria-labelledby={headingId}
      >
        <div className="thread__content">
          {messages.length === 0 && empty}
          {messages.length > 0 && (
            <ol className="thread__list">
              {messages.map((message) => (
                <MessageItem
                  key={message.id}
                  message={message}
                  live={message.id === liveId}
                  failureShown={failureShown && message === last}
                  actions={actions}
                  last={message === last}
                />
              ))}
              {waiting && <ThinkingItem />}
            </ol>
          )}
          {after}
        </div>
      </div>
      {!following && (
        <button type="button" className="thread__jump" onClick={() => toLatest({ smooth: true })}>
          <Icon d="M12 5v14M5 12l7 7 7-7" strokeWidth={2.2} />
          Jump to latest
        </button>
      )}
    </div>
  )
}
