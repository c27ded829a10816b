import type { Platform } from '@tessera/contracts/platform'
import { announceNavigation } from './use-search.ts'

/**
 * The platform with its `navigate` announced, so pages reading the query see query-only changes
 * (the host's route subscription only reports path changes).
 */
export function withAnnouncedNavigation(platform: Platform): Platform {
  return {
    ...platform,
    navigate(to, options) {
      platform.navigate(to, options)
      announceNavigation()
    },
  }
}
