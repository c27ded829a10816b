import { useEffect, useId, useRef, useState } from 'react'
import type { SearchHit } from '@tessera/contracts/assistant-search'
import { AppLink } from '@tessera/plugin-react/app-link'
import { asApiError } from '@tessera/plugin-react/api-error'
import { usePlatform } from '@tessera/plugin-react/platform'
import { assistantRoutes } from '../../../lib/paths.ts'
import { searchConversations } from '../search-api.ts'
import { useMessageTarget } from '../use-message-target.ts'
import { Highlighted } from './highlighted.tsx'
import '../search.css'

type SearchState =
  | { status: 'idle' }
  | { status: 'loading'; q: string }
  | { status: 'ready'; q: string; results: SearchHit[] }
  | { status: 'failed'; q: string; message: string }

/** Typing pauses this long before a search is sent (ms). */
const DEBOUNCE_MS = 250

/** Whether a key press belongs to a field (or an editor), where "/" is a character. */
const typingIn = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))

/**
 * Search across the conversations the list shows, from the box above it or "/" anywhere on the
 * page outside a field (the host keeps Ctrl/⌘-K for its command palette). A hit opens its
 * conversation at the matching message (`?message=`, use-message-target.ts).
 */
export function ConversationSearch({ onChoose }: { onChoose: () => void }) {
  const platform = usePlatform()
  const [q, setQ] = useState('')
  const [state, setState] = useState<SearchState>({ status: 'idle' })
  const [attempt, setAttempt] = useState(0)
  const inputRef = useRef<HTMLInputElement>(null)
  const [root, setRoot] = useState<HTMLElement | null>(null)
  const inputId = useId()
  const hintId = `${inputId}-hint`
  useMessageTarget(root)

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return
      if (typingIn(event.target) || inputRef.current === null) return
      // Only while the box can be seen (on a phone it is in the closed panel).
      if (inputRef.current.getClientRects().length === 0) return
      event.preventDefault()
      inputRef.current.focus()
      inputRef.current.select()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [])

  const query = q.trim()
  useEffect(() => {
    if (query === '') {
      setState({ status: 'idle' })
      return
    }
    const controller = new AbortController()
    const timer = setTimeout(() => {
      setState({ status: 'loading', q: query })
      searchConversations(platform, query, controller.signal).then(
        (body) => setState({ status: 'ready', q: query, results: body.results }),
        (error: unknown) => {
          if (controller.signal.aborted) return
          setState({
            status: 'failed',
            q: query,
            message: asApiError(error)?.message ?? 'The search did not work. Try again.',
          })
        },
      )
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [platform, query, attempt])

  const summary =
    state.status === 'loading'
      ? 'Searching…'
      : state.status === 'ready'
        ? state.results.length === 0
          ? `Nothing found for “${state.q}”.`
          : `${state.results.length === 1 ? '1 conversation' : `${state.results.length} conversations`} found for “${state.q}”.`
        : ''

  return (
    <search ref={setRoot} className="search">
      <label htmlFor={inputId} className="visually-hidden">
        Search conversations
      </label>
      <input
        ref={inputRef}
        id={inputId}
        type="search"
        className="search__input"
        placeholder="Search conversations"
        autoComplete="off"
        maxLength={200}
        aria-describedby={hintId}
        aria-keyshortcuts="/"
        value={q}
        onChange={(event) => setQ(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && q !== '') {
            event.stopPropagation()
            setQ('')
          }
        }}
      />
      <p id={hintId} className="search__hint muted">
        Press <kbd>/</kbd> to search
      </p>
      <p className="visually-hidden" role="status" aria-live="polite">
        {summary}
      </p>
      {state.status === 'loading' && (
        <p className="search__status muted" aria-hidden="true">
          <span className="spinner" /> Searching…
        </p>
      )}
      {state.status === 'failed' && (
        <div className="search__status" role="alert">
          <p>{state.message}</p>
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => setAttempt((n) => n + 1)}
          >
            Try again
          </button>
        </div>
      )}
      {state.status === 'ready' && state.results.length === 0 && (
        <p className="search__status muted">
          Nothing found for “{state.q}”. Try other words, or fewer of them.
        </p>
      )}
      {state.status === 'ready' && state.results.length > 0 && (
        <ul className="search__results" aria-label={`Search results for ${state.q}`}>
          {state.results.map((hit) => (
            <li key={hit.conversationId}>
              <AppLink
                to={`${platform.basePath}${assistantRoutes.conversation(hit.conversationId)}${
                  hit.message === null ? '' : `?message=${encodeURIComponent(hit.message.id)}`
                }`}
                className="search__hit"
                onClick={onChoose}
              >
                <span className="search__title">
                  <Highlighted pieces={hit.title} />
                </span>
                {hit.message !== null && (
                  <span className="search__snippet">
                    <span className="visually-hidden">
                      {hit.message.role === 'user' ? 'Your message: ' : 'Answer: '}
                    </span>
                    <Highlighted pieces={hit.message.snippet} />
                  </span>
                )}
                {hit.sharedBy !== null && (
                  <span className="search__shared muted">Shared by {hit.sharedBy}</span>
                )}
              </AppLink>
            </li>
          ))}
        </ul>
      )}
      <AppLink to={`${platform.basePath}${assistantRoutes.shares}`} className="search__shares">
        Your shared links
      </AppLink>
    </search>
  )
}
