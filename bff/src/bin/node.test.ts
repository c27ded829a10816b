import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LIVE_EVENT_NAME, registrySnapshotSchema, signedInSchema } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { startTestSupabase, uniqueEmail } from '@tessera/emulators/supabase/test-support'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout, testPassword } from '../testing/identity.ts'
import { startBff } from './node.ts'
import type { RunningBff } from './node.ts'
import { sseReader } from '../testing/app.ts'

/**
 * Registers `billing@version` and makes it stable with plain SQL, as another BFF process (or an
 * operator) would: the registry tables are the source of truth, not this process's memory.
 */
async function putStable(db: Sql, version: string): Promise<void> {
  const descriptor = {
    name: 'billing',
    version,
    contract: 1,
    basePath: '/billing',
    nav: { label: 'Billing', order: 1 },
    slots: [],
    entry: 'assets/remoteEntry.js',
    shared: { react: '19.3.1', 'react-dom': '19.3.1' },
    files: [{ path: 'assets/remoteEntry.js', sha256: 'a'.repeat(64), bytes: 1 }],
    builtAt: '2026-01-01T00:00:00.000Z',
  }
  await db.transaction(async (tx) => {
    await tx.query(`insert into public.remotes (name) values ('billing') on conflict do nothing`)
    await tx.query(
      `insert into public.remote_versions (remote_name, version, descriptor, content_sha256, base_url)
       values ('billing', $1, $2::jsonb, $3, $4)`,
      [
        version,
        JSON.stringify(descriptor),
        version.replaceAll('.', '').padEnd(64, '0'),
        `http://localhost:8788/billing/${version}`,
      ],
    )
    await tx.query(
      `insert into public.remote_channels (remote_name, channel, version) values ('billing', 'stable', $1)
       on conflict (remote_name, channel) do update set version = excluded.version, revision = remote_channels.revision + 1`,
      [version],
    )
    await tx.query(
      `insert into public.remote_deploy_events (remote_name, kind, version, actor) values ('billing', 'promoted', $1, 'test')`,
      [version],
    )
  })
}

let dir: string
let bff: RunningBff
let sql: Sql
let supabase: TestSupabase

beforeAll(async () => {
  sql = await createBffTestDatabase()
  supabase = await startTestSupabase({ db: sql, emailRateLimitSeconds: 0 })
  dir = await mkdtemp(join(tmpdir(), 'tessera-bff-'))
  await mkdir(join(dir, 'dist', 'assets'), { recursive: true })
  await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>host</title>')
  await writeFile(join(dir, 'dist', 'assets', 'app-1a2b.js'), 'export {}')
  await putStable(sql, '1.2.3')
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      HOST_DIST: join(dir, 'dist'),
      TELEMETRY_RATE_LIMIT: '2',
      SUPABASE_URL: supabase.url,
      PUBLIC_ORIGIN: 'http://app.tessera.test',
    },
    registryPollMs: 20,
    // Long enough that a close which had to wait for it would time the test out.
    closeGraceMs: 60_000,
    sql,
  })
}, databaseSetupTimeout)

afterAll(async () => {
  await bff.close()
  await supabase.stop()
  await sql.close()
  await rm(dir, { recursive: true, force: true })
})

describe('startBff', () => {
  it('listens on the port it was given (0: any free one) and answers health', async () => {
    expect(bff.port).toBeGreaterThan(0)
    const response = await fetch(`${bff.url}/api/health`)
    expect(await response.json()).toMatchObject({ status: 'ok' })
  })

  it('keeps an idle keep-alive connection past Node’s default 5 s, so a reuse then is answered', async () => {
    const socket = connect(bff.port, '127.0.0.1')
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    socket.setEncoding('utf8')
    let received = ''
    socket.on('data', (chunk: string) => (received += chunk))
    const ask = async () => {
      const before = received.length
      socket.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n')
      await expect.poll(() => received.slice(before), { timeout: 5000 }).toMatch(/^HTTP\/1\.1 200/)
    }
    await ask()
    await new Promise((resolve) => setTimeout(resolve, 7000))
    expect(socket.destroyed || socket.readableEnded).toBe(false)
    await ask()
    socket.destroy()
  }, 20_000)

  it('serves the snapshot from the registry tables and the built host with its CSP', async () => {
    const snapshot = registrySnapshotSchema.parse(
      await (await fetch(`${bff.url}/api/remotes`)).json(),
    )
    expect(snapshot.remotes.map((remote) => remote.name)).toEqual(['billing'])
    const page = await fetch(`${bff.url}/billing`, { headers: { accept: 'text/html' } })
    expect(page.headers.get('content-security-policy')).toContain(
      "script-src 'self' http://localhost:8788",
    )
    const asset = await fetch(`${bff.url}/assets/app-1a2b.js`)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect(await asset.text()).toBe('export {}')
  })

  it('rate-limits telemetry by the connection’s address, not by x-forwarded-for', async () => {
    const post = (forwardedFor: string) =>
      fetch(`${bff.url}/api/telemetry/remote-errors`, {
        method: 'POST',
        headers: {
          origin: bff.url,
          'x-tessera-csrf': '1',
          'content-type': 'application/json',
          'x-forwarded-for': forwardedFor,
        },
        body: JSON.stringify({ remote: 'billing', version: '1.2.3', stage: 'entry', message: 'x' }),
      })
    expect((await post('1.1.1.1')).status).toBe(202)
    expect((await post('2.2.2.2')).status).toBe(202)
    const limited = await post('3.3.3.3')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('rate-limits by the X-Forwarded-For client when the connection comes from a trusted proxy', async () => {
    const proxied = await startBff({
      env: {
        PORT: '0',
        LOG_LEVEL: 'silent',
        HOST_DIST: join(dir, 'dist'),
        TELEMETRY_RATE_LIMIT: '1',
        SUPABASE_URL: supabase.url,
        PUBLIC_ORIGIN: 'http://app.tessera.test',
        // The test's own connections come from loopback: they play the load balancer.
        TRUSTED_PROXIES: '127.0.0.1/32,::1',
      },
      sql,
    })
    try {
      const post = (forwardedFor: string) =>
        fetch(`${proxied.url}/api/telemetry/remote-errors`, {
          method: 'POST',
          headers: {
            origin: proxied.url,
            'x-tessera-csrf': '1',
            'content-type': 'application/json',
            'x-forwarded-for': forwardedFor,
          },
          body: JSON.stringify({
            remote: 'billing',
            version: '1.2.3',
            stage: 'entry',
            message: 'x',
          }),
        })
      expect((await post('198.51.100.1')).status).toBe(202)
      expect((await post('198.51.100.2')).status).toBe(202)
      // A client that prepends an address of its choice is still keyed by the hop the proxy saw.
      expect((await post('203.0.113.77, 198.51.100.1')).status).toBe(429)
    } finally {
      await proxied.close()
    }
  })

  it('takes the client address from the PROXY protocol header when PROXY_PROTOCOL is on', async () => {
    const proxied = await startBff({
      env: {
        PORT: '0',
        LOG_LEVEL: 'silent',
        HOST_DIST: join(dir, 'dist'),
        TELEMETRY_RATE_LIMIT: '1',
        SUPABASE_URL: supabase.url,
        PUBLIC_ORIGIN: 'http://app.tessera.test',
        PROXY_PROTOCOL: 'true',
      },
      sql,
    })
    // What HAProxy's send-proxy sends: the header, then the client's HTTP request.
    const post = (client: string) =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({
          remote: 'billing',
          version: '1.2.3',
          stage: 'entry',
          message: 'x',
        })
        const socket = connect(proxied.port, '127.0.0.1', () => {
          socket.write(
            `PROXY TCP4 ${client} 10.0.0.1 50000 8787\r\n` +
              `POST /api/telemetry/remote-errors HTTP/1.1\r\nHost: bff\r\nOrigin: ${proxied.url}\r\n` +
              `X-Tessera-Csrf: 1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
              `Connection: close\r\n\r\n${body}`,
          )
        })
        let answer = ''
        socket.on('data', (chunk) => (answer += chunk.toString()))
        socket.on('close', () => resolve(answer.split(' ')[1] ?? ''))
        socket.on('error', reject)
      })
    try {
      expect(await post('198.51.100.21')).toBe('202')
      expect(await post('198.51.100.22')).toBe('202')
      expect(await post('198.51.100.21')).toBe('429')
      // A connection without the header is closed unanswered.
      const plain = await fetch(`${proxied.url}/api/health`).catch((error: unknown) => error)
      expect(plain).toBeInstanceOf(Error)
    } finally {
      await proxied.close()
    }
  })

  it('signs up, confirms and keeps the session in an HttpOnly cookie over real HTTP', async () => {
    const email = uniqueEmail('node')
    const headers = { origin: bff.url, 'x-tessera-csrf': '1', 'content-type': 'application/json' }
    const signUp = await fetch(`${bff.url}/api/auth/sign-up`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email, password: testPassword }),
    })
    expect(signUp.status).toBe(202)
    const mail = await supabase.waitForMail(email)
    const confirmed = await fetch(`${bff.url}/api/auth/confirm`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tokenHash: mail.token_hash, type: 'signup' }),
    })
    expect(confirmed.status).toBe(200)
    const cookie = confirmed.headers.getSetCookie()[0] ?? ''
    expect(cookie).toMatch(
      /^tessera_session=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    const me = await fetch(`${bff.url}/api/me`, { headers: { cookie: cookie.split(';')[0] ?? '' } })
    const body = signedInSchema.parse(await me.json())
    expect(body.user.email).toBe(email)
    expect(body.session.recovery).toBe(false)
  })

  it('prepares the database it was given and leaves it open for its owner', async () => {
    const { rows } = await sql.query<{ version: string }>(
      'select version from supabase_migrations.schema_migrations order by version',
    )
    expect(rows.length).toBeGreaterThanOrEqual(2)
    expect(bff.sql).toBe(sql)
  })

  it('tells open event streams when another process changes the registry, and ends them on close', async () => {
    const controller = new AbortController()
    const stream = sseReader(await fetch(`${bff.url}/api/events`, { signal: controller.signal }))
    await stream.next((frame) => frame.data.includes('connection.opened'))
    await putStable(sql, '1.3.0')
    const changed = await stream.next((frame) => frame.data.includes('registry.changed'))
    expect(changed.event).toBe(LIVE_EVENT_NAME)
    expect(JSON.parse(changed.data)).toMatchObject({
      data: { remotes: [{ name: 'billing', version: '1.3.0' }] },
    })
    await bff.close()
    await stream.closed()
    await expect(fetch(`${bff.url}/api/health`)).rejects.toThrow()
    // The database was not the BFF's to close.
    expect((await sql.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }])
  })
})
