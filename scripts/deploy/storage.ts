import { createDirectoryDriver } from '../lib/storage/directory-driver.ts'
import type { StorageDriver } from '../lib/storage/driver.ts'
import { createSupabaseDriver } from '../lib/storage/supabase-driver.ts'
import type { StorageConfig } from './deploy-config.ts'

/** The storage driver the configuration names. */
export function storageDriver(config: StorageConfig): StorageDriver {
  return config.driver === 'directory'
    ? createDirectoryDriver({ root: config.root, baseUrl: config.baseUrl })
    : createSupabaseDriver({
        url: config.url,
        serviceRoleKey: config.serviceRoleKey,
        bucket: config.bucket,
      })
}
