import { useCallback } from 'react'
import type { HealthCheck, ReplicaHealth } from '@tessera/contracts/console'
import { formatDateTime, formatNumber, formatRelative } from '@tessera/plugin-react/format'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useLiveResource } from '../../../lib/use-live-resource.ts'
import { healthCheckLabels } from '../../../lib/vocabulary.ts'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { UpdatedAt } from '../../layout/components/updated-at.tsx'

/** How often the health page probes again while visible. */
export const HEALTH_POLL_MS = 10_000

function Status({ ok, up = 'OK', down = 'Failing' }: { ok: boolean; up?: string; down?: string }) {
  return (
    <span className={ok ? 'status status--ok' : 'status status--bad'}>
      <span className="status__dot" aria-hidden="true" />
      {ok ? up : down}
    </span>
  )
}

function Replicas({ replicas }: { replicas: ReplicaHealth[] }) {
  const up = replicas.filter((replica) => replica.up).length
  return (
    <section className="card" aria-labelledby="replicas-title">
      <h2 id="replicas-title">
        BFF replicas: {up} of {replicas.length} up
      </h2>
      {replicas.length === 0 ? (
        <p className="muted">No replica has reported a heartbeat yet.</p>
      ) : (
        <ul className="health-list">
          {replicas.map((replica) => (
            <li key={replica.id} className="health-item">
              <div className="health-item__top">
                <span className="health-item__name">
                  <code className="break-anywhere">{replica.id}</code>
                  {replica.self && <span className="badge">This one</span>}
                </span>
                <Status ok={replica.up} up="Up" down="Down" />
              </div>
              <p className="health-item__detail">
                Last seen{' '}
                <time dateTime={replica.lastSeenAt} title={formatDateTime(replica.lastSeenAt)}>
                  {formatRelative(replica.lastSeenAt)}
                </time>
                , started{' '}
                <time dateTime={replica.startedAt}>{formatDateTime(replica.startedAt)}</time>,
                version <code>{replica.version}</code>
              </p>
              {!replica.up && (
                <p className="health-item__problem">
                  No heartbeat since {formatDateTime(replica.lastSeenAt)}: it has stopped or cannot
                  reach the database. Check its process and logs; HAProxy sends no traffic to it
                  meanwhile.
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function Checks({ checks }: { checks: HealthCheck[] }) {
  return (
    <section className="card" aria-labelledby="checks-title">
      <h2 id="checks-title">Dependencies, as this replica reaches them</h2>
      <ul className="health-list">
        {checks.map((check) => (
          <li key={check.name} className="health-item">
            <div className="health-item__top">
              <span className="health-item__name">{healthCheckLabels[check.name]}</span>
              <Status ok={check.ok} />
            </div>
            <p className="health-item__detail">
              {check.latencyMs === null
                ? 'No answer to time.'
                : `Answered in ${formatNumber(Math.round(check.latencyMs))} ms.`}
            </p>
            {!check.ok && (
              <p className="health-item__problem">
                {check.problem ?? 'It did not answer as expected. Check its status and settings.'}
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}

/** The BFF's replicas and what it depends on, probed again every few seconds. */
export function HealthPage() {
  const api = useConsoleApi()
  const load = useCallback(() => api.health(), [api])
  const resource = useLiveResource(load, 'The health checks could not be run.', {
    pollMs: HEALTH_POLL_MS,
  })
  const { data, failure } = resource
  const failing = data
    ? data.checks.filter((check) => !check.ok).length +
      data.replicas.filter((replica) => !replica.up).length
    : 0
  return (
    <ConsolePage
      title="Health"
      intro={
        data
          ? failing === 0
            ? 'Everything answers.'
            : `${failing} ${failing === 1 ? 'thing needs' : 'things need'} attention; each says why below.`
          : 'The BFF replicas and the services they depend on.'
      }
      aside={<UpdatedAt at={resource.updatedAt} />}
    >
      {failure && <FailureAlert failure={failure} onRetry={() => void resource.reload()} />}
      {data === null && failure === null && <Progress>Checking…</Progress>}
      {data && (
        <div className="health-grid">
          <Replicas replicas={data.replicas} />
          <Checks checks={data.checks} />
        </div>
      )}
    </ConsolePage>
  )
}
