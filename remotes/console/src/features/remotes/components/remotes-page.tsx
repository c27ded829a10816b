import { useCallback } from 'react'
import type { ConsoleRemote, ConsoleRemotesResponse } from '@tessera/contracts/console'
import { AppLink } from '@tessera/plugin-react/app-link'
import { formatRelative } from '@tessera/plugin-react/format'
import { consolePaths } from '../../../lib/paths.ts'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useLiveResource } from '../../../lib/use-live-resource.ts'
import { REGISTRY_CHANGED, RESYNC } from '../../../lib/vocabulary.ts'
import { describeChannel, formatBytes, formatPercent, formatWindow } from '../../../lib/wording.ts'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { UpdatedAt } from '../../layout/components/updated-at.tsx'
import { TrafficTable } from './traffic-table.tsx'

/** How often the page re-reads while visible, besides every live registry change. */
export const REMOTES_POLL_MS = 5000

function RemoteCard({
  remote,
  canary,
}: {
  remote: ConsoleRemote
  canary: ConsoleRemotesResponse['canary']
}) {
  const headingId = `remote-${remote.name}`
  return (
    <article className="card remote-card" aria-labelledby={headingId}>
      <div className="remote-card__top">
        <h2 id={headingId} className="remote-card__name">
          {remote.name}
        </h2>
        {remote.canary.version !== null && (
          <span className="badge badge--canary">Canary at {remote.canary.percentage ?? 0} %</span>
        )}
      </div>
      <dl className="facts">
        <div>
          <dt>Stable</dt>
          <dd>
            <code>{describeChannel(remote.stable)}</code>
          </dd>
        </div>
        <div>
          <dt>Canary</dt>
          <dd>
            {remote.canary.version === null ? (
              'none'
            ) : (
              <code>{describeChannel(remote.canary)}</code>
            )}
          </dd>
        </div>
        <div>
          <dt>Contract</dt>
          <dd>{remote.contract ?? '—'}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{remote.bytes === null ? '—' : formatBytes(remote.bytes)}</dd>
        </div>
        <div className="facts__wide">
          <dt>Last published</dt>
          <dd>
            {remote.lastPublished === null ? (
              'never'
            ) : (
              <>
                <code>{remote.lastPublished.version}</code> by{' '}
                <span className="break-anywhere">{remote.lastPublished.by}</span>,{' '}
                <time dateTime={remote.lastPublished.at}>
                  {formatRelative(remote.lastPublished.at)}
                </time>
              </>
            )}
          </dd>
        </div>
      </dl>
      <TrafficTable remote={remote} monitor={canary} />
      <p className="remote-card__more">
        <AppLink to={consolePaths.remote(remote.name)}>
          Versions and actions<span className="visually-hidden"> for {remote.name}</span>
        </AppLink>
      </p>
    </article>
  )
}

/** The console's home: every remote's channels and live canary traffic. */
export function RemotesPage() {
  const api = useConsoleApi()
  const load = useCallback(() => api.remotes(), [api])
  const resource = useLiveResource(load, 'The remotes could not be loaded.', {
    pollMs: REMOTES_POLL_MS,
    liveEvents: [REGISTRY_CHANGED, RESYNC],
  })
  const { data, failure } = resource
  const canary = data?.canary
  return (
    <ConsolePage
      title="Remotes"
      intro={
        canary
          ? `What each remote serves, and each version's clients and errors over the last ${formatWindow(canary.windowSeconds)}. A canary stops by itself once more than ${formatPercent(canary.threshold)} of its clients report errors, judged from ${canary.minClients} clients on.`
          : 'What each remote serves, and each version’s clients and errors during a canary.'
      }
      aside={<UpdatedAt at={resource.updatedAt} />}
    >
      {failure && (
        <FailureAlert failure={failure} onRetry={() => void resource.reload()}>
          {data && <p className="failure__note">Showing what was read before.</p>}
        </FailureAlert>
      )}
      {data === null && failure === null && <Progress>Loading the remotes…</Progress>}
      {data !== null && data.remotes.length === 0 && (
        <div className="empty">
          <h2>No remote is registered yet</h2>
          <p>
            Publish one with <code>npm run publish -w remotes/&lt;name&gt;</code>; it appears here
            as soon as it is registered.
          </p>
        </div>
      )}
      {data !== null && data.remotes.length > 0 && (
        <ul className="remote-list" aria-label="Remotes">
          {data.remotes.map((remote) => (
            <li key={remote.name}>
              <RemoteCard remote={remote} canary={data.canary} />
            </li>
          ))}
        </ul>
      )}
    </ConsolePage>
  )
}
