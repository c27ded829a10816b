import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, mergeConfig } from 'vite'
import { describe, expect, it } from 'vitest'
import { defineRemoteConfig } from './define-remote-config.ts'
import { firstRouteJs, overBudgetMessage } from './first-route-budget.ts'
import { bundleOf, chunk } from './testing/fake-bundle.ts'

describe('firstRouteJs', () => {
  it('counts the entry, the exposed module with its imports and its lazy pages, not what they load later', () => {
    const js = firstRouteJs(
      bundleOf([
        chunk('assets/remoteEntry.js'),
        chunk('assets/__federation_expose_Plugin-1.js', {
          name: '__federation_expose_Plugin',
          imports: ['assets/fn_import-2.js'],
          dynamicImports: ['assets/routes-3.js'],
          modules: { '/r/src/plugin.tsx': 300 },
        }),
        chunk('assets/fn_import-2.js'),
        chunk('assets/routes-3.js', {
          imports: ['assets/shared-4.js'],
          dynamicImports: ['assets/checks-5.js'],
          modules: { '/r/src/pages.tsx': 2000, '/r/node_modules/ui/index.js': 5000 },
        }),
        chunk('assets/shared-4.js'),
        chunk('assets/checks-5.js', { modules: { '/r/node_modules/zod/index.js': 90_000 } }),
      ]),
    )
    expect(js.files.map((file) => file.fileName)).toEqual([
      'assets/__federation_expose_Plugin-1.js',
      'assets/fn_import-2.js',
      'assets/remoteEntry.js',
      'assets/routes-3.js',
      'assets/shared-4.js',
    ])
    expect(js.gzipBytes).toBe(js.files.reduce((sum, file) => sum + file.gzipBytes, 0))
    expect(js.modules.map((module) => module.id)).toEqual([
      '/r/node_modules/ui/index.js',
      '/r/src/pages.tsx',
      '/r/src/plugin.tsx',
    ])
  })

  it('says what is over budget, with the files and the biggest modules first', () => {
    const js = {
      files: [{ fileName: 'assets/routes-3.js', gzipBytes: 30_720 }],
      gzipBytes: 30_720,
      modules: [
        { id: '/r/node_modules/zod/v4/classic/schemas.js', renderedBytes: 61_440 },
        { id: '/r/src/pages.tsx', renderedBytes: 2048 },
      ],
    }
    const message = overBudgetMessage('auth', 20, js, '/r')
    expect(message).toContain('Remote "auth": the JS of its first route is 30.0 KiB gzipped')
    expect(message).toContain('over its budget of 20 KiB')
    expect(message).toContain('30.0 KiB  assets/routes-3.js')
    expect(message.indexOf('node_modules/zod/v4/classic/schemas.js')).toBeLessThan(
      message.indexOf('src/pages.tsx'),
    )
  })
})

describe('a remote build over its first-route budget', () => {
  it('fails, naming the budget and the biggest modules', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/sample-remote/', import.meta.url))
    const outDir = await mkdtemp(path.join(tmpdir(), 'tessera-budget-'))
    const nodeEnv = process.env.NODE_ENV
    process.env.NODE_ENV = 'production'
    try {
      const config = defineRemoteConfig({
        name: 'sample',
        basePath: '/sample',
        nav: null,
        slots: [],
        root: fixture,
        firstRouteBudgetKiB: 0.1,
      })
      await expect(
        build(mergeConfig(config, { configFile: false, logLevel: 'silent', build: { outDir } })),
      ).rejects.toThrow(/over its budget of 0\.1 KiB[\s\S]*Biggest modules[\s\S]*src\//)
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV
      else process.env.NODE_ENV = nodeEnv
      await rm(outDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('refuses a budget that is not a positive number', () => {
    const fixture = fileURLToPath(new URL('../fixtures/sample-remote/', import.meta.url))
    expect(() =>
      defineRemoteConfig({
        name: 'sample',
        basePath: '/sample',
        nav: null,
        slots: [],
        root: fixture,
        firstRouteBudgetKiB: 0,
      }),
    ).toThrow(/firstRouteBudgetKiB must be a positive number/)
  })
})
