import { AppLink } from '@tessera/plugin-react/app-link'
import { formatCount, formatDay } from '@tessera/plugin-react/format'
import { billingPlansPath } from '../../../lib/paths.ts'

/** In place of the composer once the month's tokens are used up. */
export function LimitReached({ limit, resetsOn }: { limit: number; resetsOn: string }) {
  return (
    <div className="limit">
      <p className="limit__title">
        You have used all {formatCount(limit)} tokens of your plan this month.
      </p>
      <p className="limit__text">
        Upgrade for more tokens now, or wait until {formatDay(resetsOn)}, when your tokens renew.
        Your conversations are kept either way.
      </p>
      <AppLink to={billingPlansPath} className="button button--primary button--small">
        See plans
      </AppLink>
    </div>
  )
}
