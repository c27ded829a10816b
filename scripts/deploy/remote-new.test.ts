import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyConditions, newRemoteCommand, parseNewArgs, scaffoldRemote } from './remote-new.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-remotes-'))
  // An existing remote, as the scaffold reads them: its folder, package.json and vite config.
  await mkdir(path.join(dir, 'notes'))
  await writeFile(path.join(dir, 'notes', 'package.json'), '{}')
  await writeFile(
    path.join(dir, 'notes', 'vite.config.ts'),
    "defineRemoteConfig({ name: 'notes', basePath: '/notes', nav: { label: 'Notes', order: 50 } })",
  )
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('remote new', () => {
  it('creates a remote with its page, tests, journey and README, after the existing ones in the navigation', async () => {
    const created = await scaffoldRemote({ name: 'wiki', withApi: false, slot: null }, dir)
    expect(created.files).toEqual(
      expect.arrayContaining([
        'package.json',
        'vite.config.ts',
        'src/plugin.tsx',
        'src/features/home/components/home-page.tsx',
        'src/plugin.test.tsx',
        'e2e/wiki-page-opens-from-the-navigation.spec.ts',
        'README.md',
      ]),
    )
    expect(created.files.some((file) => file.startsWith('api/'))).toBe(false)
    const config = await readFile(path.join(dir, 'wiki', 'vite.config.ts'), 'utf8')
    expect(config).toContain("basePath: '/wiki'")
    expect(config).toContain("nav: { label: 'Wiki', order: 60 }")
    expect(config).toContain('slots: []')
    expect(config).not.toMatch(/\bapi:/)
    const pkg = JSON.parse(await readFile(path.join(dir, 'wiki', 'package.json'), 'utf8')) as {
      name: string
      scripts: Record<string, string>
    }
    expect(pkg.name).toBe('@tessera/wiki')
    expect(Object.keys(pkg.scripts)).toEqual(
      expect.arrayContaining(['dev', 'build', 'test', 'typecheck', 'lint', 'publish']),
    )
  })

  it('adds the slot example and the API service when asked', async () => {
    const created = await scaffoldRemote({ name: 'wiki', withApi: true, slot: 'home.card' }, dir)
    expect(created.files).toEqual(
      expect.arrayContaining([
        'src/features/slot/components/wiki-slot.tsx',
        'api/package.json',
        'api/src/platform-jwt.ts',
        'api/src/app.test.ts',
      ]),
    )
    const plugin = await readFile(path.join(dir, 'wiki', 'src/plugin.tsx'), 'utf8')
    expect(plugin).toContain("slots: { 'home.card': WikiSlot }")
    const jwt = await readFile(path.join(dir, 'wiki', 'api/src/app.ts'), 'utf8')
    expect(jwt).toContain("audience: 'wiki'")
    // The build writes it into the descriptor; publish is refused until the operator maps it.
    const config = await readFile(path.join(dir, 'wiki', 'vite.config.ts'), 'utf8')
    expect(config).toContain("api: { path: '/api/plugins/wiki' },")
    expect(config).not.toContain('GAP')
  })

  it.each([
    ['a name the registry refuses', ['Bad_Name'], /not a remote name/],
    ['a reserved base path', ['api'], /reserved/],
    ['a reserved base path of a founding remote', ['assistant'], /reserved/],
    ['an existing remote', ['notes'], /already exists/],
    ['a slot the host does not have', ['wiki', '--slot', 'footer'], /not a slot/],
    ['no name', [], /Name the remote/],
  ])(
    'refuses %s with a sentence and exit code 2, creating nothing',
    async (_what, argv, message) => {
      const errors: string[] = []
      const before = await readdir(dir)
      const output = { log: () => undefined, error: (line: string) => errors.push(line) }
      const code = await newRemoteCommand(argv, output, dir)
      expect(code).toBe(2)
      expect(errors.join('\n')).toMatch(message)
      expect(await readdir(dir)).toEqual(before)
    },
  )

  it('parses its options', () => {
    expect(parseNewArgs(['wiki', '--with-api', '--slot=header.end'])).toEqual({
      name: 'wiki',
      withApi: true,
      slot: 'header.end',
    })
  })

  it('keeps the lines of the conditions that hold', () => {
    const text = ['a', '// #if api', 'b', '// #endif', '# #if slot', 'c', '# #endif', 'd'].join(
      '\n',
    )
    expect(applyConditions(text, { api: true, slot: false })).toBe('a\nb\nd')
  })
})
