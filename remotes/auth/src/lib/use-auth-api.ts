import { useMemo } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { createAuthApi, type AuthApi } from './auth-api.ts'

/** The auth API for this mount. */
export function useAuthApi(): AuthApi {
  const platform = usePlatform()
  return useMemo(() => createAuthApi(platform), [platform])
}
