import { StorageApiError } from '@supabase/supabase-js'
import type { SupabaseClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '@tessera/db/testing'
import { parseFileSizeLimit } from './storage-app.ts'
import type { TestSupabase } from './test-support.ts'
import { createServerClient, startTestSupabase, uniqueEmail } from './test-support.ts'

const fileSizeLimit = 256 * 1024

let supabase: TestSupabase
let admin: SupabaseClient
beforeAll(async () => {
  supabase = await startTestSupabase({ storage: { fileSizeLimit } })
  admin = supabase.adminClient()
}, databaseSetupTimeout)
afterAll(async () => {
  await supabase.stop()
})

const encoder = new TextEncoder()
const immutable = 'public, max-age=31536000, immutable'

/** A bucket no other test uses. */
async function newBucket(options: { public: boolean; fileSizeLimit?: string }): Promise<string> {
  const id = `bucket-${crypto.randomUUID().slice(0, 8)}`
  const { error } = await admin.storage.createBucket(id, options)
  expect(error).toBeNull()
  return id
}

/** The error a storage-js call returned, asserting it is Storage's API error. */
function apiError(result: { error: unknown }): StorageApiError {
  expect(result.error).toBeInstanceOf(StorageApiError)
  return result.error as StorageApiError
}

async function uploadText(bucket: string, path: string, text: string): Promise<void> {
  const { error } = await admin.storage
    .from(bucket)
    .upload(path, encoder.encode(text), { contentType: 'text/plain; charset=utf-8' })
  expect(error).toBeNull()
}

describe('buckets', () => {
  it('creates a public bucket that getBucket and listBuckets return', async () => {
    const id = `remotes-${crypto.randomUUID().slice(0, 8)}`
    const created = await admin.storage.createBucket(id, { public: true })
    expect(created).toEqual({ data: { name: id }, error: null })

    const { data: bucket } = await admin.storage.getBucket(id)
    expect(bucket).toMatchObject({ id, name: id, public: true, file_size_limit: null })
    const { data: buckets } = await admin.storage.listBuckets()
    expect(buckets?.map((entry) => entry.id)).toContain(id)
    const { data: searched } = await admin.storage.listBuckets({ search: id, limit: 5 })
    expect(searched?.map((entry) => entry.id)).toEqual([id])
    const { data: descending } = await admin.storage.listBuckets({
      sortColumn: 'name',
      sortOrder: 'desc',
    })
    const names = descending?.map((entry) => entry.name) ?? []
    expect(names).toEqual([...names].sort().reverse())
    const bad = apiError(await admin.storage.listBuckets({ limit: -1 }))
    expect(bad).toMatchObject({ statusCode: '400', message: expect.stringMatching(/^limit: /) })
  })

  it('refuses a second bucket with the same id as a duplicate', async () => {
    const id = await newBucket({ public: false })
    const error = apiError(await admin.storage.createBucket(id, { public: true }))
    // Hosted Storage answers HTTP 400 and puts the real status in statusCode.
    expect(error).toMatchObject({
      status: 400,
      statusCode: '409',
      message: 'The resource already exists',
    })
  })

  it('answers a missing bucket as not found', async () => {
    const error = apiError(await admin.storage.getBucket('no-such-bucket'))
    expect(error).toMatchObject({ statusCode: '404', message: 'Bucket not found' })
  })

  it('refuses bucket ids that hosted Storage refuses, saying which characters are allowed', async () => {
    for (const id of ['a/b', ' padded', 'x'.repeat(101), 'ümlaut']) {
      const error = apiError(await admin.storage.createBucket(id, { public: true }))
      expect(error.statusCode, id).toBe('400')
      expect(error.message, id).toMatch(/^Bucket name invalid: /)
    }
  })

  it('names the bucket options it leaves out instead of ignoring them', async () => {
    const error = apiError(
      await admin.storage.createBucket(`mime-${crypto.randomUUID().slice(0, 8)}`, {
        public: true,
        allowedMimeTypes: ['image/png'],
      }),
    )
    expect(error.status).toBe(404)
    expect(error.message).toBe(
      'The Tessera Supabase stand-in does not provide allowed_mime_types on buckets.',
    )
  })
})

describe('uploads', () => {
  it('stores raw bytes with their content type and cache control, served at the public URL with CORS', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    const source = 'export const mount = () => () => {}\n'
    const uploaded = await files.upload('billing/1.1.0/assets/remoteEntry.js', source, {
      contentType: 'text/javascript; charset=utf-8',
      headers: { 'cache-control': immutable },
    })
    expect(uploaded.data).toMatchObject({
      path: 'billing/1.1.0/assets/remoteEntry.js',
      fullPath: `${bucket}/billing/1.1.0/assets/remoteEntry.js`,
      id: expect.any(String),
    })

    const { publicUrl } = files.getPublicUrl('billing/1.1.0/assets/remoteEntry.js').data
    expect(publicUrl).toBe(
      `${supabase.url}/storage/v1/object/public/${bucket}/billing/1.1.0/assets/remoteEntry.js`,
    )
    // A browser page on another origin loads it, with no key at all.
    const response = await fetch(publicUrl, { headers: { origin: 'http://localhost:8787' } })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(source)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe(immutable)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('content-length')).toBe(String(encoder.encode(source).length))

    const etag = response.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    const revalidated = await fetch(publicUrl, { headers: { 'if-none-match': etag } })
    expect(revalidated.status).toBe(304)
    const head = await fetch(publicUrl, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await head.text()).toBe('')
  })

  it('reads a Blob sent as multipart form data, keeping its type and the cacheControl field', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    const css = '[data-tessera-remote="billing"] h1{color:red}'
    const { error } = await files.upload(
      'billing/1.1.0/assets/style.css',
      new Blob([css], { type: 'text/css' }),
      {
        cacheControl: '60',
        metadata: { sha256: 'abc' },
      },
    )
    expect(error).toBeNull()
    const response = await fetch(
      files.getPublicUrl('billing/1.1.0/assets/style.css').data.publicUrl,
    )
    expect(await response.text()).toBe(css)
    expect(response.headers.get('content-type')).toBe('text/css')
    expect(response.headers.get('cache-control')).toBe('max-age=60')

    const { data: listed } = await files.list('billing/1.1.0/assets')
    expect(listed?.[0]).toMatchObject({
      name: 'style.css',
      metadata: { mimetype: 'text/css', size: css.length, cacheControl: 'max-age=60' },
      user_metadata: { sha256: 'abc' },
    })
  })

  it('refuses to replace an object without x-upsert, and replaces it with upsert', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    await uploadText(bucket, 'auth/1.0.0/a.js', 'first')

    const error = apiError(await files.upload('auth/1.0.0/a.js', encoder.encode('second')))
    expect(error).toMatchObject({ statusCode: '409', message: 'The resource already exists' })
    expect(await (await files.download('auth/1.0.0/a.js')).data?.text()).toBe('first')

    const replaced = await files.upload('auth/1.0.0/a.js', encoder.encode('third'), {
      upsert: true,
    })
    expect(replaced.error).toBeNull()
    expect(await (await files.download('auth/1.0.0/a.js')).data?.text()).toBe('third')
    const updated = await files.update('auth/1.0.0/a.js', encoder.encode('fourth'))
    expect(updated.error).toBeNull()
    expect(await (await files.download('auth/1.0.0/a.js')).data?.text()).toBe('fourth')
  })

  it('refuses paths that climb out of a folder, start at the root or hold odd characters', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    const cases: Array<[string, RegExp]> = [
      // storage-js does not encode paths: `%2F` reaches the server and decodes to a slash.
      ['..%2Fescape.js', /\. or \.\. segments/],
      // (`%2E%2E/` alone would not reach it: fetch resolves it as a dot segment first.)
      ['billing/..%2F..%2Fescape.js', /\. or \.\. segments/],
      ['%2Fetc%2Fpasswd', /relative/],
      ['billing/a%5Cb.js', /backslash/],
      ['billing/%00.js', /control characters/],
      ['billing/<script>.js', /only/],
      ['billing/%E0%A4%A.js', /percent-encoding/],
    ]
    for (const [path, reason] of cases) {
      const error = apiError(await files.upload(path, encoder.encode('x')))
      expect(error.statusCode, path).toBe('400')
      expect(error.message, path).toMatch(/^Invalid key: /)
      expect(error.message, path).toMatch(reason)
    }
    const { data } = await files.list('')
    expect(data).toEqual([])
  })

  it('refuses an object over the size limit, raw or multipart, and over its bucket’s own limit', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    const huge = new Uint8Array(fileSizeLimit + 1)
    for (const body of [huge, new Blob([huge])]) {
      const error = apiError(await files.upload('huge.bin', body))
      expect(error).toMatchObject({
        statusCode: '413',
        message: `The object exceeded the maximum allowed size (${fileSizeLimit} bytes)`,
      })
    }
    expect((await files.exists('huge.bin')).data).toBe(false)

    const small = await newBucket({ public: true, fileSizeLimit: '1KB' })
    const error = apiError(await admin.storage.from(small).upload('a.bin', new Uint8Array(1001)))
    expect(error.statusCode).toBe('413')
    expect((await admin.storage.from(small).upload('a.bin', new Uint8Array(1000))).error).toBeNull()
  })
})

describe('reads', () => {
  it('downloads with the service role key, and answers a missing object or bucket as not found', async () => {
    const bucket = await newBucket({ public: false })
    const files = admin.storage.from(bucket)
    await uploadText(bucket, 'ai/1.0.0/index.js', 'answer()')

    const { data } = await files.download('ai/1.0.0/index.js')
    expect(await data?.text()).toBe('answer()')
    expect(data?.type).toMatch(/^text\/plain; ?charset=utf-8$/)
    expect((await files.exists('ai/1.0.0/index.js')).data).toBe(true)
    expect((await files.exists('ai/1.0.0/missing.js')).data).toBe(false)

    expect(apiError(await files.download('ai/1.0.0/missing.js'))).toMatchObject({
      status: 400,
      statusCode: '404',
      message: 'Object not found',
    })
    expect(apiError(await admin.storage.from('no-such-bucket').download('a.js')).statusCode).toBe(
      '404',
    )
  })

  it('lists one folder level under a prefix, with limit, offset, search and sort order', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    for (const path of [
      'billing/1.0.0/tessera-remote.json',
      'billing/1.0.0/assets/remoteEntry.js',
      'billing/1.0.0/assets/chunk-a.js',
      'billing/1.1.0/tessera-remote.json',
      'auth/1.0.0/tessera-remote.json',
    ]) {
      await uploadText(bucket, path, path)
    }
    const names = async (prefix: string, options: Parameters<typeof files.list>[1] = {}) =>
      (await files.list(prefix, options)).data?.map((entry) => entry.name)

    expect(await names('')).toEqual(['auth', 'billing'])
    expect(await names('billing')).toEqual(['1.0.0', '1.1.0'])
    expect(await names('billing/1.0.0/')).toEqual(['assets', 'tessera-remote.json'])
    expect(await names('billing/1.0.0/assets', { limit: 1, offset: 1 })).toEqual(['remoteEntry.js'])
    expect(await names('billing/1.0.0/assets', { search: 'CHUNK' })).toEqual(['chunk-a.js'])
    expect(
      await names('billing/1.0.0/assets', { sortBy: { column: 'name', order: 'desc' } }),
    ).toEqual(['remoteEntry.js', 'chunk-a.js'])
    expect(await names('billing/9.9.9')).toEqual([])

    const { data } = await files.list('billing/1.0.0')
    const folder = data?.find((entry) => entry.name === 'assets')
    const file = data?.find((entry) => entry.name === 'tessera-remote.json')
    expect(folder).toMatchObject({ id: null, metadata: null })
    expect(file).toMatchObject({
      id: expect.any(String),
      metadata: {
        size: 'billing/1.0.0/tessera-remote.json'.length,
        mimetype: 'text/plain; charset=utf-8',
      },
    })
  })

  it('serves public URLs without a key, but never the objects of a private bucket', async () => {
    const hidden = await newBucket({ public: false })
    await uploadText(hidden, 'secret.txt', 'secret')
    const response = await fetch(
      admin.storage.from(hidden).getPublicUrl('secret.txt').data.publicUrl,
    )
    expect(response.status).toBe(400)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.json()).toEqual({
      statusCode: '404',
      code: 'NoSuchBucket',
      error: 'Bucket not found',
      message: 'Bucket not found',
    })

    const open = await newBucket({ public: true })
    const missing = await fetch(admin.storage.from(open).getPublicUrl('missing.js').data.publicUrl)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ statusCode: '404', message: 'Object not found' })
  })

  it('offers a public object as a download with ?download', async () => {
    const bucket = await newBucket({ public: true })
    await uploadText(bucket, 'docs/report.txt', 'hello')
    const { publicUrl } = admin.storage.from(bucket).getPublicUrl('docs/report.txt', {
      download: true,
    }).data
    const response = await fetch(publicUrl)
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="report.txt"')
  })

  it('keeps objects in the database, so a restarted stand-in still serves them', async () => {
    const bucket = await newBucket({ public: true })
    await uploadText(bucket, 'kept.txt', 'still here')
    const restarted = await startTestSupabase({ db: supabase.db })
    try {
      const url = `${restarted.url}/storage/v1/object/public/${bucket}/kept.txt`
      expect(await (await fetch(url)).text()).toBe('still here')
    } finally {
      await restarted.stop()
    }
  })
})

describe('removal', () => {
  it('removes objects by name and returns the ones it removed', async () => {
    const bucket = await newBucket({ public: true })
    const files = admin.storage.from(bucket)
    await uploadText(bucket, 'a/1.js', 'one')
    await uploadText(bucket, 'a/2.js', 'two')

    const { data, error } = await files.remove(['a/1.js', 'a/missing.js', '../odd'])
    expect(error).toBeNull()
    expect(data?.map((entry) => entry.name)).toEqual(['a/1.js'])
    expect((await files.exists('a/1.js')).data).toBe(false)
    expect((await files.exists('a/2.js')).data).toBe(true)
    const gone = await fetch(files.getPublicUrl('a/1.js').data.publicUrl)
    expect(await gone.json()).toMatchObject({ statusCode: '404' })
  })
})

describe('keys and roles', () => {
  it('refuses requests without an API key or with an unknown one, except public object reads', async () => {
    const missing = await fetch(`${supabase.url}/storage/v1/bucket`)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ message: 'No API key found in request' })

    const unknown = createServerClient(supabase.url, 'sb_secret_not_the_key')
    const error = apiError(await unknown.storage.listBuckets())
    expect(error).toMatchObject({ status: 401, message: 'Invalid API key' })
  })

  it('refuses writes with the anon key or a signed-in user’s token, as row level security would', async () => {
    const bucket = await newBucket({ public: true })
    const email = uniqueEmail('storage')
    await admin.auth.admin.createUser({ email, password: 'correct horse', email_confirm: true })
    const user = supabase.client()
    expect(
      (await user.auth.signInWithPassword({ email, password: 'correct horse' })).error,
    ).toBeNull()

    for (const client of [supabase.client(), user]) {
      const refusals = [
        await client.storage.createBucket(`mine-${crypto.randomUUID().slice(0, 8)}`),
        await client.storage.from(bucket).upload('x.js', encoder.encode('x')),
        await client.storage.from(bucket).remove(['x.js']),
      ]
      for (const refusal of refusals) {
        expect(apiError(refusal)).toMatchObject({
          status: 400,
          statusCode: '403',
          message: expect.stringMatching(/^new row violates row-level security policy/),
        })
      }
    }
  })

  it('shows the anon key and signed-in users no buckets or objects through the API', async () => {
    const bucket = await newBucket({ public: true })
    await uploadText(bucket, 'visible.txt', 'public')
    const anon = supabase.client()
    expect((await anon.storage.listBuckets()).data).toEqual([])
    expect(apiError(await anon.storage.getBucket(bucket)).statusCode).toBe('404')
    expect((await anon.storage.from(bucket).list('')).data).toEqual([])
    expect(apiError(await anon.storage.from(bucket).download('visible.txt')).statusCode).toBe('404')
  })

  it('refuses a bearer token that is not a valid JWT', async () => {
    const response = await fetch(`${supabase.url}/storage/v1/bucket`, {
      headers: { apikey: supabase.anonKey, authorization: 'Bearer not.a.jwt' },
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      statusCode: '403',
      error: 'Unauthorized',
      message: expect.stringMatching(/^invalid JWT: /),
    })
  })

  it('answers CORS preflights from any origin', async () => {
    const response = await fetch(`${supabase.url}/storage/v1/object/public/any/thing.js`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-client-info',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-headers')).toBe('x-client-info')
  })

  it('names the Storage endpoints it leaves out', async () => {
    const bucket = await newBucket({ public: true })
    const error = apiError(await admin.storage.from(bucket).createSignedUrl('a.js', 60))
    expect(error.status).toBe(404)
    expect(error.message).toBe(
      'The Tessera Supabase stand-in does not provide POST /storage/v1/object/sign/….',
    )
  })
})

describe('file size limits', () => {
  it('reads Storage’s size strings in decimal units, and whole numbers as bytes', () => {
    expect(parseFileSizeLimit('1KB')).toBe(1000)
    expect(parseFileSizeLimit('1.5mb')).toBe(1_500_000)
    expect(parseFileSizeLimit('2GB')).toBe(2_000_000_000)
    expect(parseFileSizeLimit('3B')).toBe(3)
    expect(parseFileSizeLimit(4096)).toBe(4096)
    expect(() => parseFileSizeLimit('10 potatoes')).toThrow(/hint: use 20GB/)
    expect(() => parseFileSizeLimit(-1)).toThrow(/whole number/)
  })
})
