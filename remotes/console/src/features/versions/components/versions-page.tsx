import { useCallback, useState } from 'react'
import type { ConsoleRemoteDetail } from '@tessera/contracts/console'
import { AppLink } from '@tessera/plugin-react/app-link'
import { formatDateTime } from '@tessera/plugin-react/format'
import { consolePaths } from '../../../lib/paths.ts'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useLiveResource } from '../../../lib/use-live-resource.ts'
import { REGISTRY_CHANGED, RESYNC } from '../../../lib/vocabulary.ts'
import { describeChannel } from '../../../lib/wording.ts'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { UpdatedAt } from '../../layout/components/updated-at.tsx'
import { TrafficTable } from '../../remotes/components/traffic-table.tsx'
import { REMOTES_POLL_MS } from '../../remotes/components/remotes-page.tsx'
import { ActionDialog } from './action-dialog.tsx'
import type { ChannelAction } from './channel-actions.ts'
import { VersionCard } from './version-card.tsx'

/** An action being confirmed, with the page's data as it was when the dialog opened. */
interface Pending {
  action: ChannelAction
  detail: ConsoleRemoteDetail
}

function Channels({
  detail,
  onAction,
}: {
  detail: ConsoleRemoteDetail
  onAction(action: ChannelAction): void
}) {
  const { stable, canary } = detail.remote
  return (
    <section className="card channels" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <dl className="facts facts--roomy">
        <div>
          <dt>Stable</dt>
          <dd>
            <code>{describeChannel(stable)}</code>{' '}
            <span className="muted">
              (revision {stable.revision}, {formatDateTime(stable.updatedAt)})
            </span>
          </dd>
        </div>
        <div>
          <dt>Canary</dt>
          <dd>
            {canary.version === null ? 'none' : <code>{describeChannel(canary)}</code>}{' '}
            <span className="muted">
              (revision {canary.revision}, {formatDateTime(canary.updatedAt)})
            </span>
          </dd>
        </div>
        <div>
          <dt>Previous good</dt>
          <dd>{detail.previousGood === null ? 'none' : <code>{detail.previousGood}</code>}</dd>
        </div>
      </dl>
      <div className="actions">
        {canary.version !== null && (
          <button
            type="button"
            className="button button--danger"
            onClick={() => onAction({ kind: 'stop-canary' })}
          >
            Stop canary
          </button>
        )}
        {detail.previousGood !== null && stable.version !== null && (
          <button
            type="button"
            className="button button--danger"
            onClick={() => onAction({ kind: 'rollback', to: detail.previousGood ?? '' })}
          >
            Roll back to {detail.previousGood}
          </button>
        )}
        {canary.version === null && detail.previousGood === null && (
          <p className="muted">
            Nothing to stop or roll back: no canary is running and no earlier version is known good.
          </p>
        )}
      </div>
    </section>
  )
}

/** A remote's versions, its channels and the actions that move them. */
export function VersionsPage({ name }: { name: string }) {
  const api = useConsoleApi()
  const load = useCallback(() => api.remote(name), [api, name])
  const resource = useLiveResource(load, `${name} could not be loaded.`, {
    pollMs: REMOTES_POLL_MS,
    liveEvents: [REGISTRY_CHANGED, RESYNC],
  })
  const [pending, setPending] = useState<Pending | null>(null)
  const { data, failure } = resource
  const open = (action: ChannelAction) => {
    if (data) setPending({ action, detail: data })
  }
  const missing = failure !== null && data === null && failure.code === 'not_found'
  return (
    <ConsolePage
      title={missing ? 'Remote not found' : `${name} versions`}
      intro={
        missing
          ? `No remote named ${name} is registered.`
          : `Every published version of ${name}, newest first. Each action asks first and shows what changes.`
      }
      aside={<UpdatedAt at={resource.updatedAt} />}
    >
      <p className="back-link">
        <AppLink to={consolePaths.remotes}>← All remotes</AppLink>
      </p>
      {failure && !missing && (
        <FailureAlert failure={failure} onRetry={() => void resource.reload()} />
      )}
      {data === null && failure === null && <Progress>Loading {name}…</Progress>}
      {data && (
        <>
          <Channels detail={data} onAction={open} />
          <section className="section" aria-labelledby="traffic-title">
            <h2 id="traffic-title">Canary traffic</h2>
            <TrafficTable remote={data.remote} />
          </section>
          <section className="section" aria-labelledby="versions-title">
            <h2 id="versions-title">Versions ({data.versions.length})</h2>
            {data.versions.length === 0 ? (
              <p className="empty">
                No version of {name} is published yet. Publish one with{' '}
                <code>npm run publish -w remotes/{name}</code>.
              </p>
            ) : (
              <ol className="version-list">
                {data.versions.map((version) => (
                  <li key={version.version}>
                    <VersionCard version={version} detail={data} onAction={open} />
                  </li>
                ))}
              </ol>
            )}
          </section>
        </>
      )}
      {pending && (
        <ActionDialog
          action={pending.action}
          detail={pending.detail}
          onDone={resource.reload}
          onClose={() => setPending(null)}
        />
      )}
    </ConsolePage>
  )
}
