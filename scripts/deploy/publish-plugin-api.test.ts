import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startCdn, type RunningCdn } from '@tessera/emulators/cdn/node'
import type { Sql } from '@tessera/db/sql'
import { writeDescriptor } from '@tessera/remote-build'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '@tessera/bff/testing/identity'
import { startBff, type RunningBff } from '@tessera/bff/node'
import { publishCommand } from './publish.ts'

/**
 * A remote that declares an API (the scaffold's `--with-api`), end to end: the descriptor the
 * build writes (tooling/remote-build) carries `api`, `npm run publish` sends it to a real BFF over
 * HTTP, and the BFF registers it only when the operator mapped the plugin's upstream.
 */
let sql: Sql
let bff: RunningBff
let cdn: RunningCdn
let work: string
let storageDir: string

beforeAll(async () => {
  sql = await createBffTestDatabase()
  work = await mkdtemp(path.join(tmpdir(), 'tessera-publish-api-'))
  storageDir = path.join(work, 'cdn')
  cdn = await startCdn({ port: 0, root: storageDir })
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      HOST_DIST: path.join(work, 'no-host'),
      DEPLOY_STORAGE_ORIGINS: cdn.url,
      // Only notes has a service here; tasks declares one nobody mapped.
      PLUGIN_UPSTREAMS: 'notes=http://127.0.0.1:9101',
      PLUGIN_JWT_KEY_FILE: path.join(work, 'plugin-jwt-key.json'),
    },
    sql,
    registryPollMs: 20,
  })
}, databaseSetupTimeout)

afterAll(async () => {
  await bff.close()
  await cdn.close()
  await sql.close()
  await rm(work, { recursive: true, force: true })
})

/** A remote's folder whose `dist/` has the descriptor remote-build writes, declaring its API. */
async function builtRemote(remote: string): Promise<string> {
  const folder = await mkdtemp(path.join(work, `${remote}-`))
  await writeFile(path.join(folder, 'package.json'), JSON.stringify({ name: `@tessera/${remote}` }))
  const dist = path.join(folder, 'dist')
  await mkdir(path.join(dist, 'assets'), { recursive: true })
  await writeFile(path.join(dist, 'assets/remoteEntry.js'), `export const remote = '${remote}'\n`)
  const descriptor = await writeDescriptor(dist, {
    name: remote,
    version: '0.1.0',
    basePath: `/${remote}`,
    nav: { label: remote, order: 90 },
    slots: [],
    shared: { react: '19.3.1', 'react-dom': '19.3.1' },
    api: { path: `/api/plugins/${remote}` },
  })
  expect(descriptor.api).toEqual({ path: `/api/plugins/${remote}` })
  return folder
}

const tokens = new Map<string, string>()

async function publish(remote: string) {
  const token = (await bff.deployTokens.issue(remote, `${remote} team`)).token
  tokens.set(remote, token)
  const out: string[] = []
  const err: string[] = []
  const code = await publishCommand(['--no-build'], {
    cwd: await builtRemote(remote),
    env: {
      TESSERA_API_URL: bff.url,
      TESSERA_STORAGE_DIR: storageDir,
      TESSERA_STORAGE_URL: cdn.url,
      TESSERA_DATA_DIR: path.join(work, 'data'),
      TESSERA_DEPLOY_TOKEN: token,
    },
    output: { log: (line) => out.push(line), error: (line) => err.push(line) },
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('npm run publish of a remote that declares an API', () => {
  it('is refused, naming the setting the operator must add, when its upstream is not mapped', async () => {
    const run = await publish('tasks')
    expect(run.code).toBe(1)
    expect(run.err).toContain(
      'refused (plugin_api_unmapped): tasks 0.1.0 declares an API at /api/plugins/tasks, but this platform has no upstream for tasks.',
    )
    expect(run.err).toContain('add tasks=<origin of its service> to PLUGIN_UPSTREAMS')
    const state = await fetch(`${bff.url}/api/deploy/remotes/tasks`, {
      headers: { authorization: `Bearer ${tokens.get('tasks')}` },
    })
    expect(await state.text()).not.toContain('0.1.0')
  })

  it('is registered with its API when the operator mapped it', async () => {
    const run = await publish('notes')
    expect(run.err).toBe('')
    expect(run.code).toBe(0)
    expect(run.out).toContain('notes 0.1.0 registered')
  })
})
