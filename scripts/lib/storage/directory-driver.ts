/**
 * The `directory` driver: files under a folder the cdn stand-in serves (`<dataDir>/cdn`, served at
 * the cdn's URL). The cdn decides `Content-Type` (by extension) and `Cache-Control` (immutable under
 * `/<name>/<semver>/`), so `put` ignores those options.
 */
import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { StorageDriver } from './driver.ts'
import { StorageConflictError, StorageDriverError, checkStoragePath, sha256Hex } from './driver.ts'

export interface DirectoryDriverOptions {
  /** The folder the cdn serves. */
  root: string
  /** The cdn's URL, e.g. `http://localhost:8788`. */
  baseUrl: string
}

/** Files are written here first, then linked into place (link never replaces a file). */
const stagingFolder = '.tessera-staging'

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error ? String(error.code) : undefined
}

function isInside(candidate: string, folder: string): boolean {
  return candidate === folder || candidate.startsWith(folder + path.sep)
}

export function createDirectoryDriver(options: DirectoryDriverOptions): StorageDriver {
  const root = path.resolve(options.root)
  const baseUrl = options.baseUrl.replace(/\/+$/, '')

  async function storedSha256(file: string, storagePath: string): Promise<string | null> {
    try {
      return sha256Hex(await readFile(file))
    } catch (error) {
      const code = errorCode(error)
      if (code === 'ENOENT' || code === 'ENOTDIR') return null
      if (code === 'EISDIR')
        throw new StorageDriverError(`${storagePath} is a folder in ${root}, not a file.`)
      throw error
    }
  }

  /** The real path of `folder`, or of its nearest ancestor that exists. */
  async function realAncestor(folder: string): Promise<string> {
    for (let current = folder; ; current = path.dirname(current)) {
      try {
        return await realpath(current)
      } catch (error) {
        if (errorCode(error) !== 'ENOENT' || path.dirname(current) === current) throw error
      }
    }
  }

  /** The file for `segments`, its folder created, refusing one that symlinks lead outside root. */
  async function prepareFile(segments: string[], storagePath: string): Promise<string> {
    const file = path.join(root, ...segments)
    const folder = path.dirname(file)
    await mkdir(root, { recursive: true })
    const realRoot = await realpath(root)
    const refuse = () =>
      new StorageDriverError(
        `${storagePath} would be written outside ${root} (a symbolic link points elsewhere).`,
      )
    // Checked before creating folders (nothing is created outside) and after (nothing raced in).
    if (!isInside(await realAncestor(folder), realRoot)) throw refuse()
    await mkdir(folder, { recursive: true })
    if (!isInside(await realpath(folder), realRoot)) throw refuse()
    return file
  }

  return {
    name: 'directory',

    async put(storagePath, bytes) {
      const segments = checkStoragePath(storagePath)
      const sha256 = sha256Hex(bytes)
      const file = await prepareFile(segments, storagePath)
      const settle = async () => {
        const stored = await storedSha256(file, storagePath)
        if (stored === null) return false
        if (stored !== sha256) throw new StorageConflictError(storagePath, stored, sha256)
        return true
      }
      if (await settle()) return

      const staging = path.join(root, stagingFolder)
      await mkdir(staging, { recursive: true })
      const staged = path.join(staging, randomUUID())
      await writeFile(staged, bytes, { flag: 'wx' })
      try {
        // Atomic and never overwrites: of two concurrent puts, one links, the other sees EEXIST.
        await link(staged, file)
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error
        await settle()
      } finally {
        await rm(staged, { force: true })
      }
    },

    async exists(storagePath) {
      const segments = checkStoragePath(storagePath)
      const sha256 = await storedSha256(path.join(root, ...segments), storagePath)
      return sha256 === null ? null : { sha256 }
    },

    publicUrl(storagePath) {
      const segments = checkStoragePath(storagePath)
      return `${baseUrl}/${segments.map(encodeURIComponent).join('/')}`
    },
  }
}
