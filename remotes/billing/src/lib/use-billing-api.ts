import { useMemo } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { createBillingApi, type BillingApi } from './billing-api.ts'

/** The billing API for this mount. */
export function useBillingApi(): BillingApi {
  const platform = usePlatform()
  return useMemo(() => createBillingApi(platform), [platform])
}
