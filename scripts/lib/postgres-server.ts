import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * A throwaway PostgreSQL server from Debian's packages, for the test command's second database
 * pass. It runs as the `postgres` user (the server refuses root), trusts loopback connections,
 * keeps its data in a temporary folder and is removed by `stop()`.
 */
export interface PostgresServer {
  url: string
  stop(): void
}

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
  if (versions.length === 0)
    throw new Error('PostgreSQL is not installed (scripts/ensure-system-deps.sh installs it)')
  return path.join('/usr/lib/postgresql', versions[0]!, 'bin')
}

const asPostgres = (command: string, args: string[]): string[] =>
  process.getuid?.() === 0
    ? ['runuser', '-u', 'postgres', '--', command, ...args]
    : [command, ...args]

function run(argv: string[]): void {
  const [command, ...args] = argv
  const result = spawnSync(command!, args, { encoding: 'utf8' })
  if (result.status !== 0)
    throw new Error(`${argv.join(' ')} failed:\n${result.stderr}${result.stdout}`)
}

export interface PostgresServerOptions {
  /**
   * A folder to keep the server in across runs (the cluster's `.tessera/cluster/postgres`): made
   * when missing, its data reused, left in place by `stop()`. Without it: a temporary folder.
   */
  dir?: string
  /** The server's `max_connections` (each BFF replica holds a pool). */
  maxConnections?: number
}

export function startPostgresServer(
  port = 54329,
  options: PostgresServerOptions = {},
): PostgresServer {
  const bin = binDir()
  const keep = options.dir !== undefined
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'tessera-pg-'))
  mkdirSync(dir, { recursive: true })
  chmodSync(dir, 0o777)
  const data = path.join(dir, 'data')
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir])
  // A server left running by a run that was killed holds the folder: stop it first.
  if (existsSync(path.join(data, 'postmaster.pid'))) {
    const [command, ...args] = asPostgres(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-m',
      'immediate',
      '-w',
      'stop',
    ])
    // Fails when that server is already gone (a stale pid file): start goes ahead either way.
    spawnSync(command!, args)
  }
  if (!existsSync(path.join(data, 'PG_VERSION')))
    run(
      asPostgres(path.join(bin, 'initdb'), [
        '-D',
        data,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--no-sync',
      ]),
    )
  run(
    asPostgres(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=${options.maxConnections ?? 200}`,
      'start',
    ]),
  )
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      run(asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']))
      if (!keep) rmSync(dir, { recursive: true, force: true })
    },
  }
}
