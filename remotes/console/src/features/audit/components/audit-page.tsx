import { useEffect, useId, useState } from 'react'
import type { FormEvent } from 'react'
import type { AuditEntry, AuditKind, AuditSource } from '@tessera/contracts/console'
import { formatDateTime } from '@tessera/plugin-react/format'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useSearchParams } from '@tessera/plugin-react/use-search'
import { auditCsvHref, type AuditFilters } from '../../../lib/console-api.ts'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { consolePaths } from '../../../lib/paths.ts'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useNarrow } from '../../../lib/use-narrow.ts'
import {
  auditKindLabels,
  auditKinds,
  auditSourceLabels,
  auditSources,
} from '../../../lib/vocabulary.ts'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'

const isKind = (value: string | null): value is AuditKind =>
  value !== null && (auditKinds as string[]).includes(value)
const isSource = (value: string | null): value is AuditSource =>
  value !== null && (auditSources as string[]).includes(value)

/** The filters the address carries (`/console/audit?remote=billing&kind=promoted`). */
function filtersOf(params: URLSearchParams): AuditFilters {
  const kind = params.get('kind')
  const source = params.get('source')
  return {
    ...(params.get('remote') ? { remote: params.get('remote') ?? '' } : {}),
    ...(isKind(kind) ? { kind } : {}),
    ...(isSource(source) ? { source } : {}),
    ...(params.get('actor') ? { actor: params.get('actor') ?? '' } : {}),
  }
}

interface Listing {
  entries: AuditEntry[]
  nextBefore: number | null
  /** Reading the first page or the next one. */
  loading: 'first' | 'more' | null
  failure: Failure | null
}

function Filters({ filters }: { filters: AuditFilters }) {
  const platform = usePlatform()
  const ids = { remote: useId(), kind: useId(), source: useId(), actor: useId() }
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const params = new URLSearchParams()
    for (const key of ['remote', 'kind', 'source', 'actor'] as const) {
      const value = String(form.get(key) ?? '').trim()
      if (value) params.set(key, value)
    }
    const query = params.toString()
    platform.navigate(`${consolePaths.audit}${query ? `?${query}` : ''}`, { replace: true })
  }
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
      <div className="field">
        <label htmlFor={ids.remote}>Remote</label>
        <input
          id={ids.remote}
          name="remote"
          className="input"
          defaultValue={filters.remote ?? ''}
          placeholder="any"
          pattern="[a-z][a-z0-9\-]{1,31}"
          title="A remote's name: lowercase letters, digits and dashes"
          autoComplete="off"
        />
      </div>
      <div className="field">
        <label htmlFor={ids.kind}>Kind</label>
        <select id={ids.kind} name="kind" className="input" defaultValue={filters.kind ?? ''}>
          <option value="">Any kind</option>
          {auditKinds.map((kind) => (
            <option key={kind} value={kind}>
              {auditKindLabels[kind]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.source}>Source</label>
        <select id={ids.source} name="source" className="input" defaultValue={filters.source ?? ''}>
          <option value="">Any source</option>
          {auditSources.map((source) => (
            <option key={source} value={source}>
              {auditSourceLabels[source]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.actor}>Actor</label>
        <input
          id={ids.actor}
          name="actor"
          className="input"
          defaultValue={filters.actor ?? ''}
          placeholder="any"
          maxLength={100}
          autoComplete="off"
        />
      </div>
      <div className="filters__actions">
        <button type="submit" className="button button--primary">
          Apply filters
        </button>
      </div>
    </form>
  )
}

function Change({ entry }: { entry: AuditEntry }) {
  if (entry.before === null && entry.after === null) return <>—</>
  return (
    <>
      <code>{entry.before ?? 'nothing'}</code>
      <span aria-hidden="true"> → </span>
      <span className="visually-hidden"> to </span>
      <code>{entry.after ?? 'nothing'}</code>
    </>
  )
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const captionId = useId()
  const narrow = useNarrow()
  if (narrow) {
    return (
      <ol className="stacked" aria-label="Audit log entries, newest first">
        {entries.map((entry) => (
          <li key={entry.id} className="stacked__item">
            <p className="stacked__title">
              {auditKindLabels[entry.kind]}
              {entry.remote && <> · {entry.remote}</>}
            </p>
            <dl className="facts">
              <div>
                <dt>When</dt>
                <dd>
                  <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </dd>
              </div>
              <div>
                <dt>Who</dt>
                <dd>
                  <span className="break-anywhere">{entry.actor}</span>
                  <span className="audit-table__source">{auditSourceLabels[entry.source]}</span>
                </dd>
              </div>
              <div className="facts__wide">
                <dt>Before → after</dt>
                <dd>
                  <Change entry={entry} />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ol>
    )
  }
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="data-table audit-table">
        <caption id={captionId} className="visually-hidden">
          Audit log entries, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Remote</th>
            <th scope="col">Who</th>
            <th scope="col">Before → after</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">
                <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
              </td>
              <th scope="row">{auditKindLabels[entry.kind]}</th>
              <td>{entry.remote ?? '—'}</td>
              <td>
                <span className="break-anywhere">{entry.actor}</span>
                <span className="audit-table__source">{auditSourceLabels[entry.source]}</span>
              </td>
              <td>
                <Change entry={entry} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Every registry, token and role action: filters, pages of entries, and a CSV export. */
export function AuditPage() {
  const api = useConsoleApi()
  const params = useSearchParams()
  const query = params.toString()
  const [listing, setListing] = useState<Listing>({
    entries: [],
    nextBefore: null,
    loading: 'first',
    failure: null,
  })
  const [attempt, setAttempt] = useState(0)
  const filters = filtersOf(new URLSearchParams(query))

  useEffect(() => {
    let alive = true
    api.audit(filtersOf(new URLSearchParams(query))).then(
      (page) => {
        if (alive) setListing({ ...page, loading: null, failure: null })
      },
      (error: unknown) => {
        if (alive)
          setListing({
            entries: [],
            nextBefore: null,
            loading: null,
            failure: describeFailure(error, 'The audit log could not be loaded.'),
          })
      },
    )
    return () => {
      alive = false
    }
  }, [api, query, attempt])

  const more = async () => {
    if (listing.nextBefore === null) return
    setListing((previous) => ({ ...previous, loading: 'more', failure: null }))
    try {
      const page = await api.audit(filters, listing.nextBefore)
      setListing((previous) => ({
        entries: [...previous.entries, ...page.entries],
        nextBefore: page.nextBefore,
        loading: null,
        failure: null,
      }))
    } catch (error) {
      setListing((previous) => ({
        ...previous,
        loading: null,
        failure: describeFailure(error, 'Older entries could not be loaded.'),
      }))
    }
  }

  const filtered = Object.keys(filters).length > 0
  return (
    <ConsolePage
      title="Audit log"
      intro="Every publish, channel move, token and role change: who did it, from where, and what it changed."
      aside={
        <a className="button button--secondary" href={auditCsvHref(filters)} download>
          Export CSV
          <span className="visually-hidden">{filtered ? ' of the filtered log' : ''}</span>
        </a>
      }
    >
      <Filters key={query} filters={filters} />
      {listing.loading === 'first' && <Progress>Loading the audit log…</Progress>}
      {listing.failure && (
        <FailureAlert
          failure={listing.failure}
          onRetry={() => {
            setListing((previous) => ({ ...previous, loading: 'first', failure: null }))
            setAttempt((count) => count + 1)
          }}
        />
      )}
      {listing.loading !== 'first' && listing.entries.length === 0 && !listing.failure && (
        <p className="empty">
          {filtered
            ? 'No entry matches these filters. Clear a filter to see more.'
            : 'Nothing has been recorded yet.'}
        </p>
      )}
      {listing.entries.length > 0 && <AuditTable entries={listing.entries} />}
      {listing.nextBefore !== null && (
        <p>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => void more()}
            aria-busy={listing.loading === 'more'}
            disabled={listing.loading === 'more'}
          >
            {listing.loading === 'more' && <span className="spinner" aria-hidden="true" />}
            Load older entries
          </button>
        </p>
      )}
    </ConsolePage>
  )
}
