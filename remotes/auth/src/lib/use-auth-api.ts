import { useMemo } from 'react'
import { createAuthClient, type AuthClient } from './client.ts'
import { usePlatform } from '@tessera/plugin-react/platform'

/** The typed BFF client for this mount. */
export function useClient(): AuthClient {
  const platform = usePlatform()
  return useMemo(() => createAuthClient(platform), [platform])
}
