import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform } from '@tessera/plugin-react/platform'
import { formatWhen } from '@tessera/plugin-react/format'
import { assistantRoutes } from '../../../lib/paths.ts'
import type { ListState } from '../../chat/chat-store.ts'

interface ConversationListProps {
  list: ListState
  currentId: string | null
  /** Ids whose answer is streaming now: marked in the list. */
  streamingIds: ReadonlySet<string>
  onLoadMore: () => void
  onRetry: () => void
  /** A conversation was chosen (the phone layout closes its panel). */
  onChoose: () => void
}

/** The person's conversations, newest first, with "Load more" for older ones. */
export function ConversationList({
  list,
  currentId,
  streamingIds,
  onLoadMore,
  onRetry,
  onChoose,
}: ConversationListProps) {
  const platform = usePlatform()
  if (list.status === 'loading') {
    return (
      <p className="conversations__status muted" role="status">
        <span className="spinner" aria-hidden="true" /> Loading conversations…
      </p>
    )
  }
  if (list.status === 'failed') {
    return (
      <div className="conversations__status" role="alert">
        <p>{list.error?.message ?? 'Your conversations could not be loaded.'}</p>
        <button type="button" className="button button--secondary" onClick={onRetry}>
          Try again
        </button>
      </div>
    )
  }
  if (list.conversations.length === 0) {
    return (
      <p className="conversations__status muted">
        No conversations yet. Your first message starts one.
      </p>
    )
  }
  return (
    <>
      <ul className="conversations__list">
        {list.conversations.map((conversation) => {
          const current = conversation.id === currentId
          return (
            <li key={conversation.id}>
              <AppLink
                to={`${platform.basePath}${assistantRoutes.conversation(conversation.id)}`}
                className="conversations__link"
                aria-current={current ? 'page' : undefined}
                onClick={onChoose}
              >
                <span className="conversations__title">{conversation.title}</span>
                {conversation.sharedBy != null && (
                  <span className="conversations__shared">
                    Shared by {conversation.sharedBy} · read-only
                  </span>
                )}
                <span className="conversations__when">
                  {streamingIds.has(conversation.id) ? (
                    <>
                      <span className="conversations__live" aria-hidden="true" />
                      Answering…
                    </>
                  ) : (
                    <time dateTime={conversation.updatedAt}>
                      {formatWhen(conversation.updatedAt)}
                    </time>
                  )}
                </span>
              </AppLink>
            </li>
          )
        })}
      </ul>
      {list.error && (
        <p className="conversations__more-error" role="alert">
          {list.error.message}
        </p>
      )}
      {list.nextCursor !== null && (
        <button
          type="button"
          className="button button--quiet conversations__more"
          onClick={onLoadMore}
          disabled={list.loadingMore}
          aria-busy={list.loadingMore}
        >
          {list.loadingMore && <span className="spinner" aria-hidden="true" />}
          {list.loadingMore ? 'Loading…' : 'Load older conversations'}
        </button>
      )}
    </>
  )
}
