// @vitest-environment node
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { precompressDir } from './precompress.ts'

let dir = ''
afterEach(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

describe('precompressDir', () => {
  it('writes brotli and gzip copies of text files that decompress to the file, and skips the rest', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tessera-precompress-'))
    await mkdir(path.join(dir, 'assets'))
    const script = 'export const greeting = "hello";\n'.repeat(200)
    await writeFile(path.join(dir, 'assets', 'index-abc.js'), script)
    await writeFile(path.join(dir, 'index.html'), '<!doctype html>'.repeat(50))
    await writeFile(path.join(dir, 'logo.png'), Buffer.alloc(2048, 7))
    await writeFile(path.join(dir, 'tiny.css'), 'a{}')

    const written = await precompressDir(dir)

    const js = path.join(dir, 'assets', 'index-abc.js')
    expect(brotliDecompressSync(await readFile(`${js}.br`)).toString()).toBe(script)
    expect(gunzipSync(await readFile(`${js}.gz`)).toString()).toBe(script)
    expect((await readFile(`${js}.br`)).byteLength).toBeLessThan(script.length / 10)
    await expect(readFile(path.join(dir, 'index.html.br'))).resolves.toBeDefined()
    // Not text: no copies. Too small to gain: no copy larger than the file.
    await expect(readFile(path.join(dir, 'logo.png.br'))).rejects.toThrow(/ENOENT/)
    await expect(readFile(path.join(dir, 'tiny.css.gz'))).rejects.toThrow(/ENOENT/)
    expect(written.map((entry) => entry.file).sort()).toEqual([
      path.join('assets', 'index-abc.js'),
      'index.html',
      'tiny.css',
    ])
  })
})
