import { useCallback, useId, useState } from 'react'
import type { GrantedOperator, Operator } from '@tessera/contracts/console'
import { formatDateTime } from '@tessera/plugin-react/format'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { useLiveResource } from '../../../lib/use-live-resource.ts'
import { useNarrow } from '../../../lib/use-narrow.ts'
import { ConfirmDialog } from '../../layout/components/confirm-dialog.tsx'
import { ConsolePage, Progress } from '../../layout/components/console-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { GrantOperatorForm } from './grant-operator-form.tsx'

interface OperatorRowsProps {
  operators: Operator[]
  /** The signed-in operator's user id: their own row says "you". */
  selfId: string | null
  onRevoke(operator: Operator): void
}

const granted = (operator: Operator) => (
  <time dateTime={operator.grantedAt}>{formatDateTime(operator.grantedAt)}</time>
)

function OperatorTable({ operators, selfId, onRevoke }: OperatorRowsProps) {
  const captionId = useId()
  const narrow = useNarrow()
  const name = (operator: Operator) => (
    <>
      {operator.email}
      {operator.userId === selfId && (
        <>
          {' '}
          <span className="badge">you</span>
        </>
      )}
    </>
  )
  const action = (operator: Operator) => (
    <button
      type="button"
      className="button button--secondary button--small"
      onClick={() => onRevoke(operator)}
    >
      Revoke<span className="visually-hidden"> {operator.email}</span>
    </button>
  )
  if (narrow) {
    return (
      <ul className="stacked" aria-label="Operators">
        {operators.map((operator) => (
          <li key={operator.userId} className="stacked__item">
            <p className="stacked__title">{name(operator)}</p>
            <dl className="facts">
              <div>
                <dt>Granted</dt>
                <dd>{granted(operator)}</dd>
              </div>
              <div>
                <dt>By</dt>
                <dd>{operator.grantedBy}</dd>
              </div>
            </dl>
            <div className="actions">{action(operator)}</div>
          </li>
        ))}
      </ul>
    )
  }
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="data-table">
        <caption id={captionId}>Operators</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Granted</th>
            <th scope="col">By</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {operators.map((operator) => (
            <tr key={operator.userId}>
              <th scope="row" className="data-table__label">
                {name(operator)}
              </th>
              <td className="nowrap">{granted(operator)}</td>
              <td className="break-anywhere">{operator.grantedBy}</td>
              <td>{action(operator)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * Operators: who holds the role, when and by whom it was granted; grant it by email, revoke it
 * after a confirmation. The console's side of `npm run operators -- grant|revoke|list`.
 */
export function OperatorsPage() {
  const api = useConsoleApi()
  const platform = usePlatform()
  const session = useSession()
  const selfId = session.status === 'signed-in' ? session.user.id : null
  const load = useCallback(async () => (await api.operators()).operators, [api])
  const resource = useLiveResource(load, 'The operators could not be loaded.')
  const [revoking, setRevoking] = useState<Operator | null>(null)
  const { data: operators, failure } = resource

  const onGranted = ({ operator, outcome }: GrantedOperator) => {
    platform.notify(
      outcome === 'granted'
        ? { kind: 'success', message: `${operator.email} is now an operator.` }
        : { kind: 'info', message: `${operator.email} is an operator already; nothing changed.` },
    )
    void resource.reload()
  }

  const self = revoking !== null && revoking.userId === selfId
  const onlyOne = operators !== null && operators.length === 1
  return (
    <ConsolePage
      title="Operators"
      intro="Operators see and steer every remote here. Granting and revoking the role here is the same as npm run operators -- grant|revoke, and both are in the audit log."
    >
      {operators && <GrantOperatorForm onGranted={onGranted} />}
      {failure && <FailureAlert failure={failure} onRetry={() => void resource.reload()} />}
      {operators === null && failure === null && <Progress>Loading the operators…</Progress>}
      {operators && (
        <section className="section" aria-labelledby="operators-title">
          <h2 id="operators-title">Current operators</h2>
          {operators.length === 0 ? (
            <p className="empty">Nobody holds the role.</p>
          ) : (
            <OperatorTable operators={operators} selfId={selfId} onRevoke={setRevoking} />
          )}
        </section>
      )}
      {revoking && (
        <ConfirmDialog
          danger
          title={self ? 'Revoke your own operator role?' : `Revoke ${revoking.email}’s role?`}
          description={
            self
              ? 'You lose the console at once: your next request to it is refused. Another operator can grant the role again.'
              : `${revoking.email} loses the console at once: their next request to it is refused. You can grant the role again.`
          }
          confirmLabel="Revoke role"
          failureLead="The role was not revoked."
          invalid={
            self && onlyOne
              ? 'You are the only operator. Grant the role to someone else first, then revoke yours.'
              : null
          }
          onConfirm={async () => {
            await api.revokeOperator(revoking.userId)
            platform.notify({
              kind: 'success',
              message: self
                ? 'You are no longer an operator.'
                : `${revoking.email} is no longer an operator.`,
            })
            if (self) platform.navigate('/')
            else await resource.reload()
          }}
          onReload={resource.reload}
          onClose={() => setRevoking(null)}
        />
      )}
    </ConsolePage>
  )
}
