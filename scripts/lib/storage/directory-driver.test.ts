import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IMMUTABLE } from '@tessera/emulators/cdn/app'
import type { RunningCdn } from '@tessera/emulators/cdn/node'
import { startCdn } from '@tessera/emulators/cdn/node'
import { createDirectoryDriver } from './directory-driver.ts'
import type { StorageDriver } from './driver.ts'
import { StorageDriverError } from './driver.ts'
import { storageDriverContract, uniqueVersionFolder } from './driver-contract.ts'

let root: string
let outside: string
let cdn: RunningCdn
let driver: StorageDriver
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tessera-cdn-'))
  outside = await mkdtemp(path.join(tmpdir(), 'tessera-outside-'))
  cdn = await startCdn({ port: 0, root, hostname: '127.0.0.1' })
  driver = createDirectoryDriver({ root, baseUrl: cdn.url })
})
afterAll(async () => {
  await cdn.close()
  await rm(root, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

describe('the directory driver', () => {
  storageDriverContract(() => driver)

  it('writes under the cdn root, which serves the file with its type and immutable caching', async () => {
    const folder = uniqueVersionFolder()
    const source = 'export const plugin = {}\n'
    await driver.put(`${folder}/assets/remoteEntry.js`, new TextEncoder().encode(source), {
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: IMMUTABLE,
    })
    expect(await readFile(path.join(root, folder, 'assets/remoteEntry.js'), 'utf8')).toBe(source)

    const url = driver.publicUrl(`${folder}/assets/remoteEntry.js`)
    expect(url).toBe(`${cdn.url}/${folder}/assets/remoteEntry.js`)
    const response = await fetch(url)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE)
  })

  it('percent-encodes what a URL path cannot hold as is', () => {
    expect(driver.publicUrl('billing/1.0.0/a b&c.js')).toBe(`${cdn.url}/billing/1.0.0/a%20b%26c.js`)
  })

  it('never writes through a symbolic link that leads outside the root', async () => {
    await symlink(outside, path.join(root, 'linked'))
    const refusal = driver.put('linked/1.0.0/a.js', new TextEncoder().encode('x'), {
      contentType: 'text/javascript',
      cacheControl: 'no-cache',
    })
    await expect(refusal).rejects.toBeInstanceOf(StorageDriverError)
    await expect(refusal).rejects.toThrow(/outside/)
    expect(await readdir(outside)).toEqual([])
  })

  it('says so when a folder stands where a file is asked for', async () => {
    const folder = uniqueVersionFolder()
    await mkdir(path.join(root, folder, 'assets'), { recursive: true })
    await expect(driver.exists(`${folder}/assets`)).rejects.toThrow(/is a folder/)
  })

  it('leaves no staged copies behind', async () => {
    const folder = uniqueVersionFolder()
    const bytes = new TextEncoder().encode('staged()')
    const options = { contentType: 'text/javascript', cacheControl: 'no-cache' }
    await driver.put(`${folder}/a.js`, bytes, options)
    await expect(
      driver.put(`${folder}/a.js`, new TextEncoder().encode('other'), options),
    ).rejects.toThrow()
    const staging = path.join(root, '.tessera-staging')
    expect(existsSync(staging) ? await readdir(staging) : []).toEqual([])
  })
})
