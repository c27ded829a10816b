import { useId } from 'react'
import type { ConsoleRemoteDetail, ConsoleVersion } from '@tessera/contracts/console'
import { formatDateTime } from '@tessera/plugin-react/format'
import { formatBytes } from '../../../lib/wording.ts'
import type { ChannelAction } from './channel-actions.ts'

interface VersionCardProps {
  version: ConsoleVersion
  detail: ConsoleRemoteDetail
  onAction(action: ChannelAction): void
}

/** One published version: its badges, descriptor facts, publish checks, files and actions. */
export function VersionCard({ version, detail, onAction }: VersionCardProps) {
  const headingId = useId()
  const filesId = useId()
  const { stable, canary } = detail.remote
  const isStable = stable.version === version.version
  const isCanary = canary.version === version.version
  const descriptor = version.descriptor
  const passed = version.checks.filter((check) => check.passed).length
  return (
    <article className="card version-card" aria-labelledby={headingId}>
      <div className="version-card__top">
        <h3 id={headingId} className="version-card__name">
          <code>{version.version}</code>
        </h3>
        <ul className="badges" aria-label="Status">
          {isStable && <li className="badge badge--stable">Stable</li>}
          {isCanary && (
            <li className="badge badge--canary">Canary at {canary.percentage ?? 0} %</li>
          )}
          {detail.previousGood === version.version && <li className="badge">Previous good</li>}
          {version.withdrawnAt !== null && <li className="badge badge--withdrawn">Withdrawn</li>}
        </ul>
      </div>
      {version.withdrawnReason && (
        <p className="version-card__withdrawn">Withdrawn: {version.withdrawnReason}</p>
      )}
      <dl className="facts">
        <div>
          <dt>Registered</dt>
          <dd>
            <time dateTime={version.registeredAt}>{formatDateTime(version.registeredAt)}</time>
            {version.registeredBy && (
              <>
                {' '}
                by <span className="break-anywhere">{version.registeredBy}</span>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>
            {formatBytes(version.bytes)} in {descriptor.files.length}{' '}
            {descriptor.files.length === 1 ? 'file' : 'files'}
          </dd>
        </div>
        <div>
          <dt>Contract</dt>
          <dd>{descriptor.contract}</dd>
        </div>
        <div>
          <dt>Shared</dt>
          <dd>
            {Object.entries(descriptor.shared)
              .map(([name, shared]) => `${name} ${shared}`)
              .join(', ') || 'none'}
          </dd>
        </div>
        {version.lastStableAt && (
          <div>
            <dt>Last stable</dt>
            <dd>
              <time dateTime={version.lastStableAt}>{formatDateTime(version.lastStableAt)}</time>
            </dd>
          </div>
        )}
        <div className="facts__wide">
          <dt>Content sha256</dt>
          <dd>
            <code className="break-anywhere">{version.contentSha256}</code>
          </dd>
        </div>
      </dl>
      <div className="checks">
        <h4 className="checks__title">
          Checks at publish: {passed} of {version.checks.length} passed
        </h4>
        {version.checks.length === 0 ? (
          <p className="muted">No checks were recorded for this version.</p>
        ) : (
          <ul className="checks__list">
            {version.checks.map((check) => (
              <li
                key={check.name}
                className={check.passed ? 'check check--passed' : 'check check--failed'}
              >
                <span className="check__mark" aria-hidden="true">
                  {check.passed ? '✓' : '✗'}
                </span>
                <span>
                  {check.name}
                  <span className="visually-hidden">{check.passed ? ': passed' : ': failed'}</span>
                  {check.detail && <span className="muted"> — {check.detail}</span>}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <details className="files">
        <summary>
          Files ({descriptor.files.length}), entry <code>{descriptor.entry}</code>
        </summary>
        <div className="table-scroll" role="region" aria-labelledby={filesId} tabIndex={0}>
          <table className="data-table">
            <caption id={filesId}>
              Files of {detail.remote.name} {version.version}
            </caption>
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">sha256</th>
              </tr>
            </thead>
            <tbody>
              {descriptor.files.map((file) => (
                <tr key={file.path}>
                  <th scope="row">
                    <code>{file.path}</code>
                  </th>
                  <td className="num">{formatBytes(file.bytes)}</td>
                  <td>
                    <code title={file.sha256}>{file.sha256.slice(0, 12)}…</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {!isStable && (
        <div className="actions" role="group" aria-label={`Actions for ${version.version}`}>
          <button
            type="button"
            className="button button--primary"
            onClick={() => onAction({ kind: 'promote', version: version.version })}
          >
            Promote {version.version}
          </button>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => onAction({ kind: 'canary', version: version.version })}
          >
            {isCanary ? 'Change canary share' : `Start canary of ${version.version}`}
          </button>
        </div>
      )}
    </article>
  )
}
