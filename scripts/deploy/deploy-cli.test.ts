import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CONTRACT_MAJOR, DESCRIPTOR_FILE, type RemoteDescriptor } from '@tessera/contracts'
import { startCdn, type RunningCdn } from '@tessera/emulators/cdn/node'
import type { Sql } from '@tessera/db/sql'
import { startTestSupabase, type TestSupabase } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '@tessera/bff/testing/identity'
import { startBff, type RunningBff } from '@tessera/bff/node'
import { createDirectoryDriver } from '../lib/storage/directory-driver.ts'
import { createDeployApi } from './deploy-api.ts'
import { ensureLocalTokens, readLocalTokens } from './local-tokens.ts'
import { publishCommand } from './publish.ts'
import { publishBuild } from './publish-build.ts'
import { remoteCommand } from './remote.ts'

/**
 * The deploy commands against a real BFF on a free port (over HTTP, as a team runs them), with a
 * real database, the cdn stand-in serving the storage folder, and the Supabase stand-in's Storage.
 */
let sql: Sql
let bff: RunningBff
let cdn: RunningCdn
let supabase: TestSupabase
let work: string
let storageDir: string
const tokens: Record<string, string> = {}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  work = await mkdtemp(path.join(tmpdir(), 'tessera-deploy-cli-'))
  storageDir = path.join(work, 'cdn')
  cdn = await startCdn({ port: 0, root: storageDir })
  supabase = await startTestSupabase({ db: sql })
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      HOST_DIST: path.join(work, 'no-host'),
      SUPABASE_URL: supabase.url,
      DEPLOY_STORAGE_ORIGINS: `${cdn.url},${supabase.url}`,
    },
    sql,
    registryPollMs: 20,
  })
  for (const remote of ['billing', 'auth']) {
    tokens[remote] = (await bff.deployTokens.issue(remote, `${remote} team`)).token
  }
}, databaseSetupTimeout)

afterAll(async () => {
  await bff.close()
  await supabase.stop()
  await cdn.close()
  await sql.close()
  await rm(work, { recursive: true, force: true })
})

/** Collected output of one command. */
function capture() {
  const out: string[] = []
  const err: string[] = []
  return {
    out,
    err,
    output: { log: (line: string) => out.push(line), error: (line: string) => err.push(line) },
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** A remote's folder with a built `dist/` (as tooling/remote-build writes it). */
async function remoteFolder(
  remote: string,
  options: { version?: string; flavour?: string; react?: string } = {},
): Promise<string> {
  const folder = await mkdtemp(path.join(work, `${remote}-`))
  const flavour = options.flavour ?? 'a'
  const contents: Record<string, string> = {
    'assets/remoteEntry.js': `export const flavour = '${flavour}'\n`,
    [`assets/plugin-${flavour}.js`]: `export default { name: '${remote}' }\n`,
  }
  await writeFile(path.join(folder, 'package.json'), JSON.stringify({ name: `@tessera/${remote}` }))
  for (const [file, text] of Object.entries(contents)) {
    await mkdir(path.dirname(path.join(folder, 'dist', file)), { recursive: true })
    await writeFile(path.join(folder, 'dist', file), text)
  }
  const descriptor: RemoteDescriptor = {
    name: remote,
    version: options.version ?? '1.0.0',
    contract: CONTRACT_MAJOR,
    basePath: `/${remote}`,
    nav: { label: remote, order: 1 },
    slots: [],
    entry: 'assets/remoteEntry.js',
    shared: { react: options.react ?? '19.3.1', 'react-dom': options.react ?? '19.3.1' },
    files: Object.entries(contents).map(([file, text]) => ({
      path: file,
      sha256: sha256(text),
      bytes: Buffer.byteLength(text),
    })),
    builtAt: new Date().toISOString(),
  }
  await writeFile(path.join(folder, 'dist', DESCRIPTOR_FILE), JSON.stringify(descriptor))
  return folder
}

const env = (overrides: Record<string, string> = {}) => ({
  TESSERA_API_URL: bff.url,
  TESSERA_STORAGE_DIR: storageDir,
  TESSERA_STORAGE_URL: cdn.url,
  TESSERA_DATA_DIR: path.join(work, 'data'),
  ...overrides,
})

const publish = async (folder: string, args: string[], token = tokens.billing ?? '') => {
  const run = capture()
  const code = await publishCommand(['--no-build', ...args], {
    cwd: folder,
    env: env({ TESSERA_DEPLOY_TOKEN: token }),
    output: run.output,
  })
  return { code, ...run }
}

const remote = async (args: string[], token = tokens.billing ?? '') => {
  const run = capture()
  const code = await remoteCommand(args, env({ TESSERA_DEPLOY_TOKEN: token }), run.output)
  return { code, ...run }
}

describe('npm run publish', () => {
  it('uploads the build under its immutable path and registers it; again, nothing changes', async () => {
    const folder = await remoteFolder('billing')
    const first = await publish(folder, [])
    expect(first.err).toEqual([])
    expect(first.code).toBe(0)
    expect(first.out.join('\n')).toContain(
      `billing 1.0.0 registered ${cdn.url}/billing/1.0.0/assets/remoteEntry.js`,
    )
    const served = await fetch(`${cdn.url}/billing/1.0.0/assets/remoteEntry.js`)
    expect(await served.text()).toBe("export const flavour = 'a'\n")
    expect(served.headers.get('cache-control')).toContain('immutable')
    const again = await publish(folder, [])
    expect(again.code).toBe(0)
    expect(again.out.join('\n')).toMatch(/already registered, unchanged/)
  })

  it('publishes the same build as another version for a preview (--version)', async () => {
    const folder = await remoteFolder('billing', { flavour: 'b' })
    const preview = await publish(folder, ['--version', '1.1.0'])
    expect(preview.code, preview.err.join('\n')).toBe(0)
    const descriptor = JSON.parse(
      await readFile(path.join(storageDir, 'billing/1.1.0', DESCRIPTOR_FILE), 'utf8'),
    ) as RemoteDescriptor
    expect(descriptor.version).toBe('1.1.0')
  })

  it('refuses a re-used version with new content, with a sentence', async () => {
    const folder = await remoteFolder('billing', { flavour: 'c' })
    const reused = await publish(folder, [])
    expect(reused.code).toBe(1)
    expect(reused.err.join('\n')).toMatch(
      /billing 1\.0\.0 is already in directory storage with other content .*Versions are immutable/,
    )
  })

  it('refuses the wrong team’s token, an incompatible build, or a changed file, saying why', async () => {
    const folder = await remoteFolder('billing', { version: '3.0.0', flavour: 'd' })
    const wrongTeam = await publish(folder, [], tokens.auth)
    expect(wrongTeam.code).toBe(1)
    expect(wrongTeam.err[0]).toBe(
      'refused (forbidden): This deploy token is for auth; it cannot deploy billing. Use billing’s own token.',
    )
    const react18 = await publish(
      await remoteFolder('billing', { version: '3.0.1', react: '18.3.1' }),
      [],
    )
    expect(react18.code).toBe(1)
    expect(react18.err.join('\n')).toMatch(
      /built against react 18\.3\.1, but the host shares react 19/,
    )
    await writeFile(path.join(folder, 'dist/assets/plugin-d.js'), 'export default {} // edited\n')
    const edited = await publish(folder, [])
    expect(edited.code).toBe(1)
    expect(edited.err.join('\n')).toMatch(/plugin-d\.js .* is not the file the build described/)
  })

  it('publishes to Supabase Storage, and the BFF checks the files there', async () => {
    const folder = await remoteFolder('billing', { version: '1.5.0', flavour: 'e' })
    const run = capture()
    const code = await publishCommand(['--no-build'], {
      cwd: folder,
      env: env({
        TESSERA_DEPLOY_TOKEN: tokens.billing ?? '',
        TESSERA_STORAGE: 'supabase',
        SUPABASE_URL: supabase.url,
        SUPABASE_SERVICE_ROLE_KEY: supabase.serviceRoleKey,
      }),
      output: run.output,
    })
    expect(run.err).toEqual([])
    expect(code).toBe(0)
    expect(run.out.join('\n')).toContain(
      `registered ${supabase.url}/storage/v1/object/public/remotes/billing/1.5.0/assets/remoteEntry.js`,
    )
  })

  it('publishes a rebuild that kept its version as <version>-local.<digest> when asked (the local stack)', async () => {
    const folder = await remoteFolder('billing', { flavour: 'f' })
    const published = await publishBuild({
      dist: path.join(folder, 'dist'),
      storage: createDirectoryDriver({ root: storageDir, baseUrl: cdn.url }),
      api: createDeployApi({ apiUrl: bff.url, token: tokens.billing ?? '' }),
      suffixWhenTaken: true,
    })
    expect(published.result.version).toMatch(/^1\.0\.0-local\.[0-9a-f]{8}$/)
    expect(published.result.outcome).toBe('registered')
  })
})

describe('npm run remote', () => {
  it('promotes, canaries, stops and rolls back, printing each change', async () => {
    const promote = await remote(['promote', 'billing', '1.0.0'])
    expect(promote.err).toEqual([])
    expect(promote.out).toEqual([
      expect.stringMatching(/^billing stable: none → 1\.0\.0 \(revision \d+ → \d+\)$/),
    ])
    const promoteNext = await remote(['promote', 'billing', '1.1.0'])
    expect(promoteNext.out[0]).toMatch(/^billing stable: 1\.0\.0 → 1\.1\.0/)
    const canary = await remote(['canary', 'billing', '1.5.0', '25%'])
    expect(canary.out[0]).toMatch(/^billing canary: none → 1\.5\.0 at 25 %/)
    const stop = await remote(['canary', 'billing', 'stop'])
    expect(stop.out[0]).toMatch(/^billing canary: 1\.5\.0 at 25 % → none/)
    const rollback = await remote(['rollback', 'billing'])
    expect(rollback.out).toEqual([
      expect.stringMatching(/^billing stable: 1\.1\.0 → 1\.0\.0/),
      'billing 1.1.0 is withdrawn: rollback will not pick it again.',
    ])
    const list = await remote(['list', 'billing'])
    const text = list.out.join('\n')
    expect(text).toMatch(/stable {3}1\.0\.0/)
    expect(text).toMatch(/rollback nothing to roll back to/)
    expect(text).toMatch(/1\.1\.0 .*withdrawn: rolled back by billing team/)
    expect(text).toMatch(/rolled back to 1\.0\.0 from 1\.1\.0 by billing team/)
  })

  it('says nothing changed when the channel already is what was asked', async () => {
    const again = await remote(['promote', 'billing', '1.0.0'])
    expect(again.out[0]).toMatch(
      /^billing stable: already 1\.0\.0 \(revision \d+\); nothing changed$/,
    )
  })

  it('lets two racing promotes both apply, each naming what it replaced', async () => {
    const [one, two] = await Promise.all([
      remote(['promote', 'billing', '1.1.0']),
      remote(['promote', 'billing', '1.5.0']),
    ])
    expect(one?.code).toBe(0)
    expect(two?.code).toBe(0)
    const moves = [...(one?.out ?? []), ...(two?.out ?? [])]
      .map((line) => /^billing stable: (\S+) → (\S+) \(revision (\d+) → (\d+)\)$/.exec(line))
      .filter((match) => match !== null)
      .map(([, from, to, before, after]) => ({
        from,
        to,
        before: Number(before),
        after: Number(after),
      }))
      .sort((a, b) => a.after - b.after)
    expect(moves).toHaveLength(2)
    const [first, second] = moves
    // The later move replaced exactly what the earlier one put there: neither was lost.
    expect(second?.from).toBe(first?.to)
    expect(second?.before).toBe(first?.after)
    const listed = (await remote(['list', 'billing'])).out.join('\n')
    expect(listed).toContain(`stable   ${second?.to ?? '?'} (revision ${second?.after ?? '?'})`)
  })

  it('refuses a move against a stale revision when one was named', async () => {
    const stale = await remote(['promote', 'billing', '1.0.0', '--expect-revision', '0'])
    expect(stale.code).toBe(1)
    expect(stale.err[0]).toMatch(
      /^refused \(conflict\): Changed by billing team at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; reload to see it\. The stable channel of billing is at revision \d+/,
    )
  })

  it('explains its usage when the command line says nothing it can do', async () => {
    for (const args of [
      [],
      ['promote', 'billing'],
      ['canary', 'billing', '1.0.0', '0'],
      ['dance'],
    ]) {
      const run = await remote(args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.err.join('\n')).toContain('Usage: npm run remote')
    }
  })

  it('finds the local stack’s token for the remote when TESSERA_DEPLOY_TOKEN is not set', async () => {
    const dataDir = path.join(work, 'data')
    const written = await ensureLocalTokens({
      dataDir,
      remotes: ['billing', 'auth'],
      issuer: bff.deployTokens,
    })
    const file = path.join(dataDir, 'deploy-tokens.json')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    // Valid tokens are kept across restarts; a revoked one is replaced.
    expect(
      await ensureLocalTokens({ dataDir, remotes: ['billing', 'auth'], issuer: bff.deployTokens }),
    ).toEqual(written)
    const run = capture()
    const code = await remoteCommand(['list', 'billing'], env(), run.output)
    expect(code, run.err.join('\n')).toBe(0)
    expect((await readLocalTokens(dataDir)).billing).toBe(written.billing)
  })
})
