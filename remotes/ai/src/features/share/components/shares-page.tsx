import { useCallback, useEffect, useMemo, useState } from 'react'
import type { ShareLink } from '@tessera/contracts/assistant-share'
import { AppLink } from '@tessera/plugin-react/app-link'
import { asApiError } from '@tessera/plugin-react/api-error'
import { formatWhen } from '@tessera/plugin-react/format'
import { useHeadingFocus } from '@tessera/plugin-react/page'
import { usePlatform } from '@tessera/plugin-react/platform'
import { assistantRoutes } from '../../../lib/paths.ts'
import { copyShareUrl, createShareApi, shareUrl } from '../share-api.ts'
import '../../../styles/controls.css'
import '../share.css'

type ListState =
  | { status: 'loading' }
  | { status: 'ready'; links: ShareLink[] }
  | { status: 'failed'; message: string }

/** `/assistant/shares`: the author's public links, each with Open, Copy link and Stop sharing. */
export function SharesPage() {
  const platform = usePlatform()
  const api = useMemo(() => createShareApi(platform), [platform])
  const [state, setState] = useState<ListState>({ status: 'loading' })
  const [note, setNote] = useState('')
  const headingRef = useHeadingFocus()

  const load = useCallback(() => {
    setState({ status: 'loading' })
    api.list().then(
      (links) => setState({ status: 'ready', links }),
      (error: unknown) =>
        setState({
          status: 'failed',
          message: asApiError(error)?.message ?? 'Your shared links could not be loaded.',
        }),
    )
  }, [api])
  useEffect(load, [load])

  const revoke = async (link: ShareLink) => {
    try {
      await api.revoke(link.conversationId)
      setState((current) =>
        current.status === 'ready'
          ? { status: 'ready', links: current.links.filter((l) => l.id !== link.id) }
          : current,
      )
      setNote(`“${link.title}” is no longer shared; its link no longer works.`)
    } catch (error) {
      setNote(asApiError(error)?.message ?? 'The link could not be stopped. Try again.')
    }
  }

  return (
    <div className="shares">
      <h1 ref={headingRef} tabIndex={-1}>
        Shared links
      </h1>
      <p>
        Anyone with one of these links can read that conversation, as it is when they open it,
        without signing in. Stop sharing and the link no longer works.
      </p>
      <p role="status">{note}</p>
      {state.status === 'loading' && (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> Loading your shared links…
        </p>
      )}
      {state.status === 'failed' && (
        <div role="alert">
          <p>{state.message}</p>
          <button type="button" className="button button--secondary" onClick={load}>
            Try again
          </button>
        </div>
      )}
      {state.status === 'ready' && state.links.length === 0 && (
        <p>You have not shared any conversation. Open one and choose “Share link”.</p>
      )}
      {state.status === 'ready' && state.links.length > 0 && (
        <ul className="shares__list">
          {state.links.map((link) => (
            <li key={link.id} className="shares__item">
              <span className="shares__what">
                <AppLink
                  to={`${platform.basePath}${assistantRoutes.conversation(link.conversationId)}`}
                >
                  {link.title}
                </AppLink>
                <span className="muted">
                  Shared <time dateTime={link.createdAt}>{formatWhen(link.createdAt)}</time>
                </span>
              </span>
              <a href={shareUrl(link)} target="_blank" rel="noreferrer">
                Open<span className="visually-hidden"> the page of “{link.title}”</span>
              </a>
              <button
                type="button"
                className="button button--secondary button--small"
                onClick={() =>
                  void copyShareUrl(link).then((copied) =>
                    setNote(copied ? 'Link copied.' : `Copying was refused: ${shareUrl(link)}`),
                  )
                }
              >
                Copy link<span className="visually-hidden"> of “{link.title}”</span>
              </button>
              <button
                type="button"
                className="button button--quiet button--small button--danger-text"
                onClick={() => void revoke(link)}
              >
                Stop sharing<span className="visually-hidden"> “{link.title}”</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <p>
        <AppLink to={platform.basePath}>Back to the assistant</AppLink>
      </p>
    </div>
  )
}
