import { useCallback, useId, useState } from 'react'
import type { ConsoleToken, IssuedToken as Issued } from '@tessera/contracts/console'
import { formatDateTime, formatRelative } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useNarrow } from '../../../lib/use-narrow.ts'
import { useLiveResource } from '../../../lib/use-live-resource.ts'
import { ConfirmDialog } from '../../layout/components/confirm-dialog.tsx'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { IssueTokenForm } from './issue-token-form.tsx'
import { IssuedToken } from './issued-token.tsx'

function TokenTable({
  tokens,
  onRevoke,
}: {
  tokens: ConsoleToken[]
  onRevoke(token: ConsoleToken): void
}) {
  const captionId = useId()
  const narrow = useNarrow()
  const lastUsed = (token: ConsoleToken) =>
    token.lastUsedAt === null ? (
      'never'
    ) : (
      <time dateTime={token.lastUsedAt} title={formatDateTime(token.lastUsedAt)}>
        {formatRelative(token.lastUsedAt)}
      </time>
    )
  const action = (token: ConsoleToken) =>
    token.revokedAt ? (
      <span className="muted">Revoked {formatDateTime(token.revokedAt)}</span>
    ) : (
      <button
        type="button"
        className="button button--secondary button--small"
        onClick={() => onRevoke(token)}
      >
        Revoke<span className="visually-hidden"> {token.label}</span>
      </button>
    )
  if (narrow) {
    return (
      <ul className="stacked" aria-label="Deploy tokens">
        {tokens.map((token) => (
          <li
            key={token.id}
            className={token.revokedAt ? 'stacked__item is-revoked' : 'stacked__item'}
          >
            <p className="stacked__title">
              {token.label} · {token.remote}
            </p>
            <dl className="facts">
              <div>
                <dt>Issued</dt>
                <dd>
                  <time dateTime={token.createdAt}>{formatDateTime(token.createdAt)}</time>
                </dd>
              </div>
              <div>
                <dt>Last used</dt>
                <dd>{lastUsed(token)}</dd>
              </div>
            </dl>
            <div className="actions">{action(token)}</div>
          </li>
        ))}
      </ul>
    )
  }
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="data-table">
        <caption id={captionId}>Deploy tokens</caption>
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Remote</th>
            <th scope="col">Issued</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id} className={token.revokedAt ? 'is-revoked' : undefined}>
              <th scope="row" className="data-table__label">
                {token.label}
              </th>
              <td>{token.remote}</td>
              <td className="nowrap">
                <time dateTime={token.createdAt}>{formatDateTime(token.createdAt)}</time>
              </td>
              <td className="nowrap">{lastUsed(token)}</td>
              <td>{action(token)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Deploy tokens: issue one (shown once), see each one's last use, revoke. */
export function TokensPage() {
  const api = useConsoleApi()
  const platform = usePlatform()
  const load = useCallback(
    async () => ({ tokens: (await api.tokens()).tokens, remotes: await api.remotes() }),
    [api],
  )
  const resource = useLiveResource(load, 'The deploy tokens could not be loaded.')
  const [issued, setIssued] = useState<Issued | null>(null)
  const [revoking, setRevoking] = useState<ConsoleToken | null>(null)
  const { data, failure } = resource
  const remoteNames = data?.remotes.remotes.map((remote) => remote.name) ?? []

  const onIssued = (token: Issued) => {
    setIssued(token)
    void resource.reload()
  }

  return (
    <ConsolePage
      title="Deploy tokens"
      intro="Each token publishes and moves one remote's channels from CI or the command line. Only its hash is stored."
    >
      {issued && <IssuedToken issued={issued} onDismiss={() => setIssued(null)} />}
      {data && <IssueTokenForm remotes={remoteNames} onIssued={onIssued} />}
      {failure && <FailureAlert failure={failure} onRetry={() => void resource.reload()} />}
      {data === null && failure === null && <Progress>Loading the deploy tokens…</Progress>}
      {data && (
        <section className="section" aria-labelledby="tokens-title">
          <h2 id="tokens-title">Issued tokens</h2>
          {data.tokens.length === 0 ? (
            <p className="empty">
              No token has been issued yet. Issue one above for each remote’s CI.
            </p>
          ) : (
            <TokenTable tokens={data.tokens} onRevoke={setRevoking} />
          )}
        </section>
      )}
      {revoking && (
        <ConfirmDialog
          danger
          title={`Revoke “${revoking.label}”?`}
          description={`Whatever uses it can no longer publish or move ${revoking.remote}. This cannot be undone; issue a new token if it is still needed.`}
          confirmLabel="Revoke token"
          failureLead="The token was not revoked."
          onConfirm={async () => {
            await api.revokeToken(revoking.id)
            platform.notify({ kind: 'success', message: `Revoked “${revoking.label}”.` })
            await resource.reload()
          }}
          onReload={resource.reload}
          onClose={() => setRevoking(null)}
        />
      )}
    </ConsolePage>
  )
}
