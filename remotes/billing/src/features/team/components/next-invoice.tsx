import { useEffect, useId, useState } from 'react'
import type { SeatPreview } from '@tessera/contracts/billing'
import { formatDate, formatMoney } from '@tessera/plugin-react/format'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { useBillingApi } from '../../../lib/use-billing-api.ts'

type PreviewState =
  | { status: 'loading' }
  | { status: 'ready'; preview: SeatPreview }
  | { status: 'failed'; failure: Failure }

/**
 * A team's next invoice at its current seats (owners and admins): the prorations of seats added
 * or removed since the last one, then the next month at the new count.
 */
export function NextInvoice({ seats }: { seats: number }) {
  const api = useBillingApi()
  const headingId = useId()
  const [state, setState] = useState<PreviewState>({ status: 'loading' })
  useEffect(() => {
    let live = true
    setState({ status: 'loading' })
    api.seatPreview(seats).then(
      (preview) => live && setState({ status: 'ready', preview }),
      (error: unknown) =>
        live &&
        setState({
          status: 'failed',
          failure: describeFailure(error, 'The next invoice could not be loaded.'),
        }),
    )
    return () => {
      live = false
    }
  }, [api, seats])

  return (
    <section className="card next-invoice" aria-labelledby={headingId}>
      <h2 id={headingId} className="plan-summary__heading">
        Next invoice
      </h2>
      {state.status === 'loading' && <p className="muted">Loading the next invoice…</p>}
      {state.status === 'failed' && <p role="alert">{state.failure.message}</p>}
      {state.status === 'ready' && <InvoiceLines preview={state.preview} />}
    </section>
  )
}

function InvoiceLines({ preview }: { preview: SeatPreview }) {
  const money = (amount: number) => formatMoney(amount, preview.currency)
  return (
    <>
      <table className="next-invoice__lines">
        <caption className="visually-hidden">Lines of the next invoice</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Period</th>
            <th scope="col" className="next-invoice__amount">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {preview.lines.map((line, index) => (
            <tr key={`${line.description ?? ''}-${index}`}>
              <td>
                {line.description ?? (line.proration ? 'Seat change' : 'Seats')}
                {line.proration && <span className="next-invoice__tag"> (prorated)</span>}
              </td>
              <td>
                {formatDate(line.periodStart)} – {formatDate(line.periodEnd)}
              </td>
              <td className="next-invoice__amount">{money(line.amount)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td className="next-invoice__amount">{money(preview.nextInvoiceTotal)}</td>
          </tr>
        </tfoot>
      </table>
      {preview.prorationAmount !== 0 && (
        <p className="muted">
          Seat changes since the last invoice: {money(preview.prorationAmount)}, prorated to the
          day.
        </p>
      )}
    </>
  )
}
