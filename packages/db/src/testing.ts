/**
 * Fresh databases for tests, fast. A template (bootstrap + migrations) is built once and cached
 * on disk, keyed by the bootstrap and migration files, so every test file gets its own database in
 * well under a second instead of running initdb (3–6 s):
 *
 * - PGlite (default): the template is a `dumpDataDir()` tarball under `.tessera/cache/`; each
 *   database is `PGlite.create({ loadDataDir })` in memory.
 * - A PostgreSQL server, when `TESSERA_TEST_DATABASE_URL` names one (a role that may create
 *   databases): the template is a database `tessera_tpl_<hash>`; each test database is
 *   `create database … template …`, dropped on close.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto'
import postgres from 'postgres'
import { z } from 'zod/mini'
import { bootstrapSql } from './bootstrap.ts'
import { readMigrationFiles } from './migrations.ts'
import { openPglite, prepareDatabase } from './open-database.ts'
import { defaultMigrationsDir, repoRoot } from './paths.ts'
import { createPgliteSql } from './pglite-sql.ts'
import { createPostgresJsSql } from './postgres-js-sql.ts'
import type { Sql } from './sql.ts'

// The one environment variable of the test helper, read once.
const testEnv = z
  .object({ TESSERA_TEST_DATABASE_URL: z.optional(z.url()) })
  .parse({ TESSERA_TEST_DATABASE_URL: process.env.TESSERA_TEST_DATABASE_URL || undefined })

export interface TestDatabaseOptions {
  /** Migrations in the template: the repo's by default; `false` for bootstrap only. */
  migrationsDir?: string | false
  /** Override the environment: `null` forces PGlite, a URL forces that server. */
  serverUrl?: string | null
}

/**
 * A hook timeout for suites that create a test database: the first one on a machine builds the
 * template with initdb, which takes tens of seconds on a busy two-core machine.
 */
export const databaseSetupTimeout = 120_000

/** The PostgreSQL server this process tests against, when it does (the test command's second pass). */
export const testServerUrl = testEnv.TESSERA_TEST_DATABASE_URL

/** Which engine `createTestDatabase()` uses by default in this process. */
export const testDatabaseKind: Sql['kind'] = testServerUrl === undefined ? 'pglite' : 'postgres'

const cacheDir = path.join(repoRoot, '.tessera/cache')

async function templateKey(migrationsDir: string | false): Promise<string> {
  const hash = createHash('sha256')
  const pglitePackage = await readFile(
    path.join(repoRoot, 'node_modules/@electric-sql/pglite/package.json'),
    'utf8',
  )
  hash.update(String((JSON.parse(pglitePackage) as { version: unknown }).version))
  hash.update(bootstrapSql)
  if (migrationsDir !== false) {
    for (const file of await readMigrationFiles(migrationsDir))
      hash.update(`${file.file}:${file.checksum}\n`)
  }
  return hash.digest('hex').slice(0, 16)
}

const pgliteTemplates = new Map<string, Promise<Blob>>()

async function pgliteTemplate(migrationsDir: string | false): Promise<Blob> {
  const key = await templateKey(migrationsDir)
  let template = pgliteTemplates.get(key)
  if (template === undefined) {
    template = loadOrBuildPgliteTemplate(key, migrationsDir)
    pgliteTemplates.set(key, template)
  }
  return template
}

async function loadOrBuildPgliteTemplate(
  key: string,
  migrationsDir: string | false,
): Promise<Blob> {
  const file = path.join(cacheDir, `pglite-template-${key}.tar`)
  try {
    return new Blob([await readFile(file)])
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error
  }
  const sql = await openPglite({ dataDir: 'memory://' })
  try {
    await prepareDatabase(sql, { bootstrap: true, migrationsDir })
    const dump = await sql.pglite.dumpDataDir('none')
    const bytes = new Uint8Array(await dump.arrayBuffer())
    await mkdir(cacheDir, { recursive: true })
    // Parallel test workers may build the same template; the rename makes the publish atomic.
    const partial = `${file}.${randomUUID()}.partial`
    await writeFile(partial, bytes)
    await rename(partial, file)
    return new Blob([bytes])
  } finally {
    await sql.close()
  }
}

/** A database of its own for one test file; `close()` discards it. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<Sql> {
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir
  const serverUrl = options.serverUrl === undefined ? testServerUrl : options.serverUrl
  if (serverUrl !== undefined && serverUrl !== null)
    return createServerTestDatabase(serverUrl, migrationsDir)
  const pglite = await PGlite.create({
    dataDir: 'memory://',
    extensions: { pgcrypto },
    loadDataDir: await pgliteTemplate(migrationsDir),
  })
  // Tests catch a transaction calling the database instead of its handle (too slow to serve with).
  return createPgliteSql(pglite, { detectNestedUse: true })
}

function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

// One connection that asks for no array types (see `createPostgresJsSql`).
const adminOptions = { max: 1, fetch_types: false, onnotice: () => undefined }

const serverTemplates = new Map<string, Promise<string>>()

async function serverTemplate(serverUrl: string, migrationsDir: string | false): Promise<string> {
  const name = `tessera_tpl_${await templateKey(migrationsDir)}`
  let template = serverTemplates.get(`${serverUrl} ${name}`)
  if (template === undefined) {
    template = buildServerTemplate(serverUrl, name, migrationsDir)
    serverTemplates.set(`${serverUrl} ${name}`, template)
  }
  return template
}

async function buildServerTemplate(
  serverUrl: string,
  name: string,
  migrationsDir: string | false,
): Promise<string> {
  const admin = postgres(serverUrl, adminOptions)
  try {
    const existing = await admin`select 1 from pg_database where datname = ${name}`
    if (existing.length > 0) return name
    const building = `tessera_build_${randomUUID().replaceAll('-', '')}`
    await admin.unsafe(`create database ${building}`)
    const sql = createPostgresJsSql(databaseUrl(serverUrl, building), { max: 1 })
    try {
      await prepareDatabase(sql, { bootstrap: true, migrationsDir })
    } finally {
      await sql.close()
    }
    try {
      await admin.unsafe(`alter database ${building} rename to ${name}`)
    } catch (error) {
      // Another worker published the same template first; theirs is identical.
      await admin.unsafe(`drop database if exists ${building}`)
      const raced = await admin`select 1 from pg_database where datname = ${name}`
      if (raced.length === 0) throw error
    }
    return name
  } finally {
    await admin.end({ timeout: 5 })
  }
}

async function createServerTestDatabase(
  serverUrl: string,
  migrationsDir: string | false,
): Promise<Sql> {
  const template = await serverTemplate(serverUrl, migrationsDir)
  const name = `tessera_test_${randomUUID().replaceAll('-', '')}`
  const admin = postgres(serverUrl, adminOptions)
  try {
    await admin.unsafe(`create database ${name} template ${template}`)
  } finally {
    await admin.end({ timeout: 5 })
  }
  const sql = createPostgresJsSql(databaseUrl(serverUrl, name), { max: 4 })
  return {
    ...sql,
    async close() {
      await sql.close()
      const dropper = postgres(serverUrl, adminOptions)
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`)
      } finally {
        await dropper.end({ timeout: 5 })
      }
    },
  }
}
