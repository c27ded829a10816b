import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, mergeConfig } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { remoteDescriptorSchema, type RemoteDescriptor } from '@tessera/contracts'
import { defineRemoteConfig } from './define-remote-config.ts'
import { SATISFY_STUB_MESSAGE } from './host-provided-shared.ts'

const fixture = fileURLToPath(new URL('../fixtures/sample-remote/', import.meta.url))
const options = {
  name: 'sample',
  basePath: '/sample',
  nav: { label: 'Sample', order: 1 },
  slots: [],
  api: { path: '/api/plugins/sample' },
  root: fixture,
} as const

let outDir: string
let descriptor: RemoteDescriptor
const files = new Map<string, string>()

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'tessera-remote-build-'))
  // Build as `npm run build` does: Vitest sets NODE_ENV=test, which gives a development JSX
  // runtime and different chunks.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  await build(
    mergeConfig(defineRemoteConfig({ ...options, slots: [] }), {
      configFile: false,
      logLevel: 'silent',
      build: { outDir },
    }),
  ).finally(() => {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  })
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const absolute = path.join(entry.parentPath, entry.name)
    files.set(
      path.relative(outDir, absolute).split(path.sep).join('/'),
      await readFile(absolute, 'utf8'),
    )
  }
  descriptor = remoteDescriptorSchema.parse(JSON.parse(files.get('tessera-remote.json') ?? ''))
}, 60_000)

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true })
})

const javascript = () => [...files].filter(([name]) => name.endsWith('.js'))
const stylesheets = () => [...files].filter(([name]) => name.endsWith('.css'))

describe('a remote built with defineRemoteConfig', () => {
  it('writes a descriptor with the package name and version beside assets/remoteEntry.js', () => {
    expect(descriptor).toMatchObject({
      name: 'sample',
      version: '2.3.4',
      basePath: '/sample',
      nav: { label: 'Sample', order: 1 },
      entry: 'assets/remoteEntry.js',
      api: { path: '/api/plugins/sample' },
    })
    expect(files.has('assets/remoteEntry.js')).toBe(true)
    expect(descriptor.shared.react).toMatch(/^\d+\.\d+\.\d+$/)
    expect(descriptor.shared['react-dom']).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('lists every other emitted file with the hash and size of its bytes on disk', () => {
    const listed = descriptor.files.map((file) => file.path).sort()
    const emitted = [...files.keys()].filter((name) => name !== 'tessera-remote.json').sort()
    expect(listed).toEqual(emitted)
    for (const file of descriptor.files) {
      const bytes = Buffer.from(files.get(file.path) ?? '', 'utf8')
      expect(file.bytes, file.path).toBe(bytes.byteLength)
      expect(file.sha256, file.path).toBe(createHash('sha256').update(bytes).digest('hex'))
    }
  })

  it('ships no copy of react or react-dom, only the shared imports of them', () => {
    for (const [name, code] of javascript()) {
      // Every production build of react and react-dom carries its error-decoder URL.
      expect(code, name).not.toContain('react.dev/errors')
    }
    const all = javascript()
      .map(([, code]) => code)
      .join('\n')
    expect(all).toContain('"react-dom/client"')
    expect(all).toContain('"react"')
  })

  it('leaves no originjs placeholder in remoteEntry.js and lists the exposed module CSS in it', () => {
    const remoteEntry = files.get('assets/remoteEntry.js') ?? ''
    expect(remoteEntry).not.toContain('__v__css__')
    expect(remoteEntry).toMatch(/\["plugin-[\w-]+\.css"\]/)
    expect(remoteEntry).toMatch(/"\.\/__federation_expose_Plugin-[\w-]+\.js"/)
  })

  it('emits no fallback copy of a shared module, nor a runtime chunk split off for one', () => {
    const names = javascript().map(([name]) => name)
    expect(names.filter((name) => /__federation_shared_|rolldown-runtime/.test(name))).toEqual([])
    expect(names).toContainEqual(expect.stringMatching(/^assets\/_virtual___federation_fn_import-/))
  })

  it('emits the exposed module itself, not a re-export of another chunk', () => {
    const exposed = javascript().filter(([name]) => name.includes('__federation_expose_Plugin'))
    expect(exposed).toHaveLength(1)
    // The plugin's own code (its name, its lazy import) is in the chunk remoteEntry.js imports.
    expect(exposed[0]?.[1]).toContain('"sample"')
    expect(exposed[0]?.[1]).toContain('lazy-page-')
  })

  it('lists in the descriptor what the exposed module needs at once, and not its lazy page', () => {
    const preload = descriptor.preload ?? []
    const listed = new Set(descriptor.files.map((file) => file.path))
    for (const file of preload) expect(listed.has(file), file).toBe(true)
    expect(preload[0]).toMatch(/^assets\/__federation_expose_Plugin-[\w-]+\.js$/)
    expect(preload).toContainEqual(expect.stringMatching(/^assets\/plugin-[\w-]+\.css$/))
    // Everything the exposed chunk imports statically is listed, so nothing is found late.
    const exposedCode = files.get(preload[0] ?? '') ?? ''
    for (const match of exposedCode.matchAll(/from\s*"\.\/([\w-]+\.js)"/g)) {
      expect(preload).toContain(`assets/${match[1] ?? ''}`)
    }
    expect(preload.some((file) => file.includes('lazy-page'))).toBe(false)
    expect(preload).not.toContain('assets/remoteEntry.js')
  })

  it('puts what the exposed module imports in one chunk, which its lazy page imports from', () => {
    const preload = descriptor.preload ?? []
    // The exposed chunk, the one chunk of what it imports (React's JSX runtime, the contracts'
    // definePlugin, the module it shares with its lazy page) and that chunk's stylesheet; beside
    // them only originjs's import helper, which remoteEntry.js imports as well.
    const own = preload.filter((file) => !file.includes('_virtual___federation_fn_import-'))
    expect(own).toEqual([
      expect.stringMatching(/^assets\/__federation_expose_Plugin-[\w-]+\.js$/),
      expect.stringMatching(/^assets\/plugin-[\w-]+\.js$/),
      expect.stringMatching(/^assets\/plugin-[\w-]+\.css$/),
    ])
    expect(preload).toHaveLength(4)
    const chunk = own[1] ?? ''
    expect(files.get(chunk)).toContain('Clicked once')
    const lazyPage = javascript().find(([name]) => name.includes('lazy-page-'))
    expect(lazyPage?.[1]).toContain(`"./${path.posix.basename(chunk)}"`)
    expect(javascript().filter(([, code]) => code.includes('Clicked once'))).toHaveLength(1)
  })

  it("ships a stub instead of originjs's semver matcher, which a remote never calls", () => {
    const all = javascript()
      .map(([, code]) => code)
      .join('\n')
    // A piece of the semver grammar in originjs's satisfy.mjs.
    expect(all).not.toContain('[0-9A-Za-z-]+')
    expect(all).toContain(SATISFY_STUB_MESSAGE)
  })

  it('loads lazy chunks and their CSS relative to the chunk that imports them, never from /', () => {
    for (const [name, code] of javascript()) {
      expect(code, name).not.toMatch(/["'`]\/assets\//)
    }
    const importer = javascript().find(([, code]) => code.includes('lazy-page-'))
    expect(importer?.[1]).toContain('import.meta.url')
    expect(importer?.[1]).toMatch(/"\.\/lazy-page-[\w-]+\.css"/)
  })

  it('scopes every CSS rule to the remote element, even those written for h1, button and :root', () => {
    const css = stylesheets()
      .map(([, code]) => code)
      .join('\n')
    expect(css).toContain('[data-tessera-remote=sample] h1{')
    expect(css).toContain('[data-tessera-remote=sample] button{')
    expect(css).toContain('[data-tessera-remote=sample]{--sample-gap:8px}')
    // Outside at-rules, every rule starts with the scope.
    const topLevel = css.replace(/@keyframes[^{]+\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, '')
    for (const rule of topLevel.split('}').filter((part) => part.includes('{'))) {
      expect(rule.trim(), rule).toMatch(/^\[data-tessera-remote=sample\]/)
    }
  })
})

describe('defineRemoteConfig', () => {
  it('refuses a federation name that is not the name of the package', () => {
    expect(() => defineRemoteConfig({ ...options, slots: [], name: 'billing' })).toThrow(
      /does not match its package "@tessera\/sample"/,
    )
  })

  it('refuses an API path that is not the remote’s own, before building anything', () => {
    expect(() =>
      defineRemoteConfig({ ...options, slots: [], api: { path: '/api/plugins/billing' } }),
    ).toThrow(/served under its own name, so write api: \{ path: '\/api\/plugins\/sample' \}/)
    expect(() =>
      defineRemoteConfig({ ...options, slots: [], api: { path: 'http://127.0.0.1:9101' } }),
    ).toThrow(/api: \{ path: '\/api\/plugins\/sample' \}/)
  })
})
