import { useMemo } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { createConsoleApi, type ConsoleApi } from './console-api.ts'

/** The console API for this mount. */
export function useConsoleApi(): ConsoleApi {
  const platform = usePlatform()
  return useMemo(() => createConsoleApi(platform), [platform])
}
