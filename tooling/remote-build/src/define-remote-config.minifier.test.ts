import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, mergeConfig } from 'vite'
import { describe, expect, it } from 'vitest'
import { defineRemoteConfig } from './define-remote-config.ts'

// A file of its own: originjs keeps state between builds in one process, so this build must be
// the first (and only) one its worker runs for the failure to be the minifier's alone.
const fixture = fileURLToPath(new URL('../fixtures/sample-remote/', import.meta.url))

describe('defineRemoteConfig with the wrong minifier', () => {
  it("fails the build when the minifier leaves originjs's CSS placeholder in remoteEntry.js", async () => {
    // Oxc, Vite 8's default minifier, prints the placeholder as a template literal that originjs
    // does not replace (federation-facts workaround 1); the build must stop instead of shipping it.
    const outDir = await mkdtemp(path.join(tmpdir(), 'tessera-remote-build-oxc-'))
    try {
      const config = mergeConfig(
        defineRemoteConfig({
          name: 'sample',
          basePath: '/sample',
          nav: null,
          slots: [],
          root: fixture,
        }),
        { configFile: false, logLevel: 'silent', build: { outDir, minify: 'oxc' } },
      )
      const failure: unknown = await build(config).then(
        () => null,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(Error)
      const message = (failure as Error).message
      expect(message).toContain(
        'assets/remoteEntry.js still contains the originjs placeholder "__v__css__"',
      )
      // …and only that: the exposed module itself was found and emitted.
      expect(message).not.toContain('which the build did not emit')
    } finally {
      await rm(outDir, { recursive: true, force: true })
    }
  }, 60_000)
})
