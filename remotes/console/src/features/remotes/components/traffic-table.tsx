import { useId } from 'react'
import type { ConsoleRemote } from '@tessera/contracts/console'
import { formatCount } from '@tessera/plugin-react/format'
import { useNarrow } from '../../../lib/use-narrow.ts'
import { formatPercent } from '../../../lib/wording.ts'
import { Sparkline } from './sparkline.tsx'

interface TrafficTableProps {
  remote: ConsoleRemote
  /**
   * The canary monitor's threshold (0–1) and the clients it waits for before judging, to mark a
   * rate above it; absent where the page does not know them.
   */
  monitor?: { threshold: number; minClients: number }
}

type Traffic = ConsoleRemote['traffic'][number]

function duration(ms: number | null): string {
  if (ms === null) return 'over 12 s'
  if (ms < 1000) return `${ms} ms`
  return `${(ms / 1000).toLocaleString(undefined, { maximumFractionDigits: 1 })} s`
}

/** How long the version took to show in browsers: median / 95th percentile of the wait. */
function timeToShow(traffic: Traffic): string {
  const { loads } = traffic
  if (loads === null) return 'No loads reported'
  return `${duration(loads.readyP50Ms)} / ${duration(loads.readyP95Ms)}`
}

/** The stages behind the wait, for the stacked (narrow) view and the wide cell's title. */
function loadDetail(traffic: Traffic): string | null {
  const { loads } = traffic
  if (loads === null) return null
  return `${formatCount(loads.count)} ${loads.count === 1 ? 'load' : 'loads'}, ${formatPercent(loads.preloadedShare)} preloaded; entry ${duration(loads.entryMs)}, module ${duration(loads.exposeMs)}, mount ${duration(loads.mountMs)} on average`
}

/** Which channel serves a version now, in words. */
function channelOf(remote: ConsoleRemote, version: string): string {
  if (remote.canary.version === version) return `Canary, ${remote.canary.percentage ?? 0} %`
  if (remote.stable.version === version) return 'Stable'
  return 'No channel'
}

/**
 * Each served version's clients, errors and time to show over the canary window, with its
 * sparkline of errors. A table
 * that scrolls inside its own labelled, focusable region on narrow screens.
 */
export function TrafficTable({ remote, monitor }: TrafficTableProps) {
  const captionId = useId()
  const narrow = useNarrow()
  if (remote.traffic.length === 0) {
    return <p className="muted">No client was served a canary of {remote.name} in this window.</p>
  }
  const rate = (traffic: ConsoleRemote['traffic'][number]) => {
    const over = monitor !== undefined && traffic.errorRate > monitor.threshold
    return (
      <>
        <span className={over ? 'rate rate--over' : 'rate'}>
          {formatPercent(traffic.errorRate)}
        </span>
        {over && (
          <span className="rate__note">
            {traffic.servedClients >= (monitor?.minClients ?? 0)
              ? ' above the threshold'
              : ' above the threshold, not judged yet'}
          </span>
        )}
      </>
    )
  }
  if (narrow) {
    return (
      <ul className="stacked" aria-label={`Traffic of ${remote.name} by version`}>
        {remote.traffic.map((traffic) => (
          <li key={traffic.version} className="stacked__item">
            <p className="stacked__title">
              <code>{traffic.version}</code> · {channelOf(remote, traffic.version)}
            </p>
            <dl className="facts">
              <div>
                <dt>Clients served</dt>
                <dd>{formatCount(traffic.servedClients)}</dd>
              </div>
              <div>
                <dt>With errors</dt>
                <dd>{formatCount(traffic.errorClients)}</dd>
              </div>
              <div>
                <dt>Error rate</dt>
                <dd>{rate(traffic)}</dd>
              </div>
              <div>
                <dt>Time to show, median / 95 %</dt>
                <dd>
                  {timeToShow(traffic)}
                  {loadDetail(traffic) !== null && (
                    <span className="muted"> ({loadDetail(traffic)})</span>
                  )}
                </dd>
              </div>
              <div>
                <dt>Errors per minute</dt>
                <dd>
                  <Sparkline
                    values={traffic.errorsPerMinute}
                    subject={`${remote.name} ${traffic.version}`}
                  />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
    )
  }
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="data-table">
        <caption id={captionId}>Traffic of {remote.name} by version</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Channel</th>
            <th scope="col" className="num">
              Clients served
            </th>
            <th scope="col" className="num">
              With errors
            </th>
            <th scope="col" className="num">
              Error rate
            </th>
            <th scope="col" className="num">
              Time to show, median / 95 %
            </th>
            <th scope="col">Errors per minute</th>
          </tr>
        </thead>
        <tbody>
          {remote.traffic.map((traffic) => {
            return (
              <tr key={traffic.version}>
                <th scope="row">
                  <code>{traffic.version}</code>
                </th>
                <td>{channelOf(remote, traffic.version)}</td>
                <td className="num">{formatCount(traffic.servedClients)}</td>
                <td className="num">{formatCount(traffic.errorClients)}</td>
                <td className="num">{rate(traffic)}</td>
                <td className="num">
                  {timeToShow(traffic)}
                  {loadDetail(traffic) !== null && (
                    <small className="muted cell-note">{loadDetail(traffic)}</small>
                  )}
                </td>
                <td>
                  <Sparkline
                    values={traffic.errorsPerMinute}
                    subject={`${remote.name} ${traffic.version}`}
                  />
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
