/**
 * What every storage driver promises, as tests: each driver's test file runs these against a real
 * backend (a folder served by the cdn stand-in, the Supabase stand-in).
 */
import { expect, it } from 'vitest'
import type { StorageDriver } from './driver.ts'
import { InvalidStoragePathError, StorageConflictError, sha256Hex } from './driver.ts'

const encoder = new TextEncoder()
const script = {
  contentType: 'text/javascript; charset=utf-8',
  cacheControl: 'public, max-age=31536000, immutable',
}

/** A versioned folder no other test uses: `<remote>/<random semver>`. */
export function uniqueVersionFolder(remote = 'billing'): string {
  const [a = 0, b = 0, c = 0] = crypto.getRandomValues(new Uint16Array(3))
  return `${remote}/${a}.${b}.${c}`
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url)
  expect(response.status, url).toBe(200)
  return new Uint8Array(await response.arrayBuffer())
}

/** Registers the contract's tests; call inside a `describe`, after the driver is set up. */
export function storageDriverContract(driver: () => StorageDriver): void {
  it('stores a file and serves it at its public URL', async () => {
    const path = `${uniqueVersionFolder()}/assets/remoteEntry.js`
    const bytes = encoder.encode('export const plugin = {}\n')
    await driver().put(path, bytes, script)
    expect(await fetchBytes(driver().publicUrl(path))).toEqual(bytes)
  })

  it('reports nothing before a put and the SHA-256 of the bytes after', async () => {
    const path = `${uniqueVersionFolder()}/tessera-remote.json`
    const bytes = encoder.encode('{"name":"billing"}')
    expect(await driver().exists(path)).toBeNull()
    await driver().put(path, bytes, { contentType: 'application/json', cacheControl: 'no-cache' })
    expect(await driver().exists(path)).toEqual({ sha256: sha256Hex(bytes) })
  })

  it('accepts the same bytes at the same path again', async () => {
    const path = `${uniqueVersionFolder()}/assets/chunk.js`
    const bytes = encoder.encode('chunk()')
    await driver().put(path, bytes, script)
    await expect(driver().put(path, bytes, script)).resolves.toBeUndefined()
  })

  it('refuses other bytes at a published path and keeps the first ones', async () => {
    const path = `${uniqueVersionFolder()}/assets/chunk.js`
    const first = encoder.encode('first()')
    const second = encoder.encode('second()')
    await driver().put(path, first, script)
    const refusal = await driver()
      .put(path, second, script)
      .then(
        () => null,
        (error: unknown) => error,
      )
    expect(refusal).toBeInstanceOf(StorageConflictError)
    expect(refusal).toMatchObject({
      path,
      storedSha256: sha256Hex(first),
      newSha256: sha256Hex(second),
      message: expect.stringMatching(/publish a new version/),
    })
    expect(await fetchBytes(driver().publicUrl(path))).toEqual(first)
  })

  it('lets exactly one of two concurrent puts of different bytes win', async () => {
    const path = `${uniqueVersionFolder()}/assets/race.js`
    const candidates = [encoder.encode('a()'), encoder.encode('b()')]
    const results = await Promise.allSettled(
      candidates.map((bytes) => driver().put(path, bytes, script)),
    )
    const won = results.findIndex((result) => result.status === 'fulfilled')
    const lost = results.find((result) => result.status === 'rejected')
    expect(won).not.toBe(-1)
    expect(lost?.status === 'rejected' ? lost.reason : null).toBeInstanceOf(StorageConflictError)
    const winner = candidates[won] ?? new Uint8Array()
    expect(await driver().exists(path)).toEqual({ sha256: sha256Hex(winner) })
  })

  it('refuses paths that are absolute, climb out, or hold odd characters, before storing anything', async () => {
    const folder = uniqueVersionFolder()
    for (const path of [
      '',
      `/${folder}/a.js`,
      `${folder}/../../escape.js`,
      `${folder}/./a.js`,
      `${folder}//a.js`,
      `${folder}/a\\b.js`,
      `${folder}/a?b.js`,
      `${folder}/é.js`,
      `${folder}/a\u0000.js`,
    ]) {
      await expect(driver().put(path, encoder.encode('x'), script), path).rejects.toBeInstanceOf(
        InvalidStoragePathError,
      )
      await expect(driver().exists(path), path).rejects.toBeInstanceOf(InvalidStoragePathError)
      expect(() => driver().publicUrl(path), path).toThrow(InvalidStoragePathError)
    }
    expect(await driver().exists('escape.js')).toBeNull()
  })
}
