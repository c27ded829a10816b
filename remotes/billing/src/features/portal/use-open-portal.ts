import { useCallback, useState } from 'react'
import { describeFailure, type Failure } from '../../lib/failure.ts'
import { externalRedirect } from '../../lib/redirect.ts'
import { useBillingApi } from '../../lib/use-billing-api.ts'
import { useLeaving } from '../../lib/use-leaving.ts'

/**
 * Opens Stripe's billing portal: asks the BFF for a portal session, then leaves for it. One
 * request however often the button is pressed; a failure comes back as sentences.
 */
export function useOpenPortal() {
  const api = useBillingApi()
  const [failure, setFailure] = useState<Failure | null>(null)
  const go = useCallback(async () => {
    const { url } = await api.openPortal()
    externalRedirect.go(url)
  }, [api])
  const { pending, run } = useLeaving(go)

  const open = useCallback(async () => {
    setFailure(null)
    try {
      await run(undefined)
    } catch (error) {
      setFailure(describeFailure(error, 'The billing portal could not be opened.'))
    }
  }, [run])

  const dismiss = useCallback(() => setFailure(null), [])
  return { open, opening: pending !== null, failure, dismiss }
}
