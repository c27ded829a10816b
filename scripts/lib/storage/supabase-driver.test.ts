import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '@tessera/db/testing'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import { startTestSupabase } from '@tessera/emulators/supabase/test-support'
import type { StorageDriver } from './driver.ts'
import { StorageDriverError } from './driver.ts'
import { storageDriverContract, uniqueVersionFolder } from './driver-contract.ts'
import { createSupabaseDriver, defaultRemotesBucket } from './supabase-driver.ts'

let supabase: TestSupabase
let driver: StorageDriver
beforeAll(async () => {
  supabase = await startTestSupabase()
  driver = createSupabaseDriver({ url: supabase.url, serviceRoleKey: supabase.serviceRoleKey })
}, databaseSetupTimeout)
afterAll(async () => {
  await supabase.stop()
})

const immutable = 'public, max-age=31536000, immutable'

describe('the supabase driver', () => {
  storageDriverContract(() => driver)

  it('creates its public bucket on first use and serves files with the type and caching given', async () => {
    const bucket = `remotes-${crypto.randomUUID().slice(0, 8)}`
    const fresh = createSupabaseDriver({
      url: supabase.url,
      serviceRoleKey: supabase.serviceRoleKey,
      bucket,
    })
    const path = `${uniqueVersionFolder()}/assets/remoteEntry.js`
    await fresh.put(path, new TextEncoder().encode('export {}'), {
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: immutable,
    })
    const { data } = await supabase.adminClient().storage.getBucket(bucket)
    expect(data).toMatchObject({ id: bucket, public: true })

    const url = fresh.publicUrl(path)
    expect(url).toBe(`${supabase.url}/storage/v1/object/public/${bucket}/${path}`)
    const response = await fetch(url)
    expect(await response.text()).toBe('export {}')
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe(immutable)
  })

  it('uses the "remotes" bucket unless told otherwise', () => {
    expect(driver.publicUrl('auth/1.0.0/a.js')).toBe(
      `${supabase.url}/storage/v1/object/public/${defaultRemotesBucket}/auth/1.0.0/a.js`,
    )
  })

  it('refuses to publish into a private bucket, and says how to fix it', async () => {
    const bucket = `private-${crypto.randomUUID().slice(0, 8)}`
    await supabase.adminClient().storage.createBucket(bucket, { public: false })
    const hidden = createSupabaseDriver({
      url: supabase.url,
      serviceRoleKey: supabase.serviceRoleKey,
      bucket,
    })
    const refusal = hidden.put('auth/1.0.0/a.js', new TextEncoder().encode('x'), {
      contentType: 'text/javascript',
      cacheControl: immutable,
    })
    await expect(refusal).rejects.toBeInstanceOf(StorageDriverError)
    await expect(refusal).rejects.toThrow(/is private.*Make it public/)
  })

  it('passes on Storage’s reason when the key cannot write', async () => {
    const readOnly = createSupabaseDriver({
      url: supabase.url,
      serviceRoleKey: supabase.anonKey,
      bucket: `anon-${crypto.randomUUID().slice(0, 8)}`,
    })
    const refusal = readOnly.put('auth/1.0.0/a.js', new TextEncoder().encode('x'), {
      contentType: 'text/javascript',
      cacheControl: immutable,
    })
    await expect(refusal).rejects.toBeInstanceOf(StorageDriverError)
    await expect(refusal).rejects.toThrow(/row-level security policy.*\(status 403\)/)
  })
})
