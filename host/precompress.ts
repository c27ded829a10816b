import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { constants, brotliCompress, gzip } from 'node:zlib'
import { promisify } from 'node:util'
import type { Plugin } from 'vite'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** Files a browser downloads as text, worth sending compressed. */
export const compressibleFile = /\.(?:js|mjs|css|html|json|svg|txt)$/

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
}

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) beside every text file of
 * `dir`, when smaller than the file, so a server sends them as they are (the BFF's host-dist.ts)
 * and compression costs no CPU per request. Returns each text file's size and its copies.
 */
export async function precompressDir(
  dir: string,
): Promise<{ file: string; raw: number; br: number; gz: number }[]> {
  const written: { file: string; raw: number; br: number; gz: number }[] = []
  for (const file of await filesUnder(dir)) {
    if (!compressibleFile.test(file)) continue
    const full = path.join(dir, file)
    const raw = await readFile(full)
    const [br, gz] = await Promise.all([
      brotli(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength,
        },
      }),
      gzipAsync(raw, { level: 9 }),
    ])
    if (br.byteLength < raw.byteLength) await writeFile(`${full}.br`, br)
    if (gz.byteLength < raw.byteLength) await writeFile(`${full}.gz`, gz)
    written.push({ file, raw: raw.byteLength, br: br.byteLength, gz: gz.byteLength })
  }
  return written
}

/** The host build's last step: precompressed copies of its text files (see precompressDir). */
export function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'tessera:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir)
    },
    async closeBundle() {
      await precompressDir(outDir)
    },
  }
}
