import {
  attachmentResponseSchema,
  entitlementsOf,
  errorBodySchema,
  isCatalogued,
  messageListSchema,
  plans,
} from '@tessera/contracts'
import type { Attachment } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import {
  deltaText,
  newConversation,
  readAnswer,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { csrfHeaders } from '../../testing/app.ts'
import { startAttachmentsTestApp, upload, uploaded } from '../../testing/attachments.ts'
import { makePdf, makePng } from '../../testing/files.ts'
import { usagePeriodOf } from '../assistant/period.ts'
import { defaultAttachmentsBucket } from './attachment-storage.ts'
import { createAttachments } from './attachments.ts'
import { createLogger } from '../../platform/logger.ts'

let t: AssistantTestApp
const HISTORY_CHARS = 6000
const free = plans.free.limits.attachments

beforeAll(async () => {
  t = await startAttachmentsTestApp({ env: { ASSISTANT_HISTORY_CHARS: String(HISTORY_CHARS) } })
}, databaseSetupTimeout)
afterAll(() => t.finish())

async function expectError(response: Response, code: string, status: number) {
  const body = errorBodySchema.parse(await response.clone().json())
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code })
  expect(isCatalogued(body.error.code, response.status)).toBe(true)
  return body
}

function sendWith(browser: TestBrowser, conversationId: string, content: string, ids: string[]) {
  return browser.request(`/api/assistant/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: csrfHeaders,
    body: JSON.stringify({ content, attachmentIds: ids }),
  })
}

/** The stored object of an attachment, read with the service key (null when it is gone). */
async function storedObject(userId: string, id: string): Promise<Uint8Array | null> {
  const { data, error } = await t.supabase
    .adminClient()
    .storage.from(defaultAttachmentsBucket)
    .download(`${userId}/${id}`)
  if (error !== null) return null
  return new Uint8Array(await data.arrayBuffer())
}

describe('uploading', () => {
  it('stores an image in a private bucket and serves it back only through the BFF', async () => {
    const ada = await t.user('ada')
    const png = makePng(3, 2)
    const attachment = await uploaded(ada, 'chart.png', png)
    expect(attachment).toMatchObject({
      name: 'chart.png',
      kind: 'image',
      contentType: 'image/png',
      sizeBytes: png.byteLength,
      width: 3,
      height: 2,
    })
    const response = await ada.get(`/api/assistant/attachments/${attachment.id}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="chart.png"/)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(png)
    expect(await storedObject(ada.id, attachment.id)).toEqual(png)
    // The bucket is private: no public URL, and the anon key reads nothing.
    const bucket = await t.supabase.adminClient().storage.getBucket(defaultAttachmentsBucket)
    expect(bucket.data?.public).toBe(false)
    const anon = await t.supabase
      .client()
      .storage.from(defaultAttachmentsBucket)
      .download(`${ada.id}/${attachment.id}`)
    expect(anon.error).not.toBeNull()
  })

  it('serves text and PDFs as downloads, never inline, whatever their name says', async () => {
    const ada = await t.user('ada')
    const page = await uploaded(ada, 'page.html', '<script>alert(1)</script>')
    expect(page).toMatchObject({ kind: 'text', contentType: 'text/plain' })
    const response = await ada.get(`/api/assistant/attachments/${page.id}`)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; /)
    expect(response.headers.get('content-security-policy')).toContain('sandbox')
    const pdf = await uploaded(
      ada,
      'Résumé 2026.pdf',
      makePdf('Seven words are written on this page'),
    )
    expect(pdf).toMatchObject({
      kind: 'pdf',
      contentType: 'application/pdf',
      name: 'Résumé 2026.pdf',
    })
    const download = await ada.get(`/api/assistant/attachments/${pdf.id}`)
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="R_sum_ 2026.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%202026.pdf`,
    )
  })

  it('refuses a file whose name lies about its bytes, and bytes of no accepted kind', async () => {
    const ada = await t.user('ada')
    const lie = await expectError(
      await upload(ada, 'photo.png', makePdf('x')),
      'attachment_type_mismatch',
      415,
    )
    expect(lie.error.details).toEqual({ named: 'image/png', found: 'application/pdf' })
    await expectError(
      await upload(ada, 'notes.txt', makePng(2, 2)),
      'attachment_type_mismatch',
      415,
    )
    await expectError(await upload(ada, 'scan.jpg', 'just text'), 'attachment_type_mismatch', 415)
    const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0xff])
    await expectError(await upload(ada, 'tool', binary), 'attachment_type_unsupported', 415)
    // A PNG signature with no readable header is not an image we can describe.
    const broken = makePng(2, 2).slice(0, 12)
    await expectError(await upload(ada, 'broken.png', broken), 'attachment_type_mismatch', 415)
  })

  it('refuses an empty file, a PDF without text, and a name it cannot keep', async () => {
    const ada = await t.user('ada')
    await expectError(await upload(ada, 'empty.txt', new Uint8Array()), 'attachment_empty', 422)
    await expectError(await upload(ada, 'scan.pdf', makePdf(null)), 'attachment_no_text', 422)
    await expectError(await upload(ada, null, 'hello'), 'attachment_name_invalid', 422)
    await expectError(await upload(ada, 'a/b.txt', 'hello'), 'attachment_name_invalid', 422)
    await expectError(await upload(ada, 'x'.repeat(201), 'hello'), 'attachment_name_invalid', 422)
    const badEncoding = await ada.request('/api/assistant/attachments', {
      method: 'POST',
      headers: { ...csrfHeaders, 'x-attachment-name': '%E0%A4%A' },
      body: 'hello',
    })
    await expectError(badEncoding, 'attachment_name_invalid', 422)
    const rows = await t.db.query('select 1 from public.assistant_attachments where user_id = $1', [
      ada.id,
    ])
    expect(rows.rowCount).toBe(0)
  })

  it('stops reading an oversized file at the plan’s limit, declared or not', async () => {
    const ada = await t.user('ada')
    const tooBig = new Uint8Array(free.fileBytes + 1).fill(0x61)
    const declared = await expectError(
      await upload(ada, 'big.txt', tooBig),
      'attachment_too_large',
      413,
    )
    expect(declared.error.details).toEqual({ limitBytes: free.fileBytes })
    // Chunked, with no length: counted while read, and the rest is never pulled.
    let pulled = 0
    const chunk = new Uint8Array(256 * 1024).fill(0x61)
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    await expectError(await upload(ada, 'endless.txt', endless), 'attachment_too_large', 413)
    expect(pulled).toBeLessThan(free.fileBytes + 4 * chunk.byteLength)
    const used = await t.db.query(
      'select 1 from public.assistant_attachment_usage where user_id = $1',
      [ada.id],
    )
    expect(used.rowCount).toBe(0)
  })

  it('refuses uploads past the plan’s bytes for the month', async () => {
    const ada = await t.user('ada')
    await t.db.query(
      'insert into public.assistant_attachment_usage (user_id, period_start, used_bytes) values ($1, $2, $3)',
      [ada.id, usagePeriodOf(t.clock.now()).start, free.monthlyBytes - 10],
    )
    await uploaded(ada, 'small.txt', 'ten bytes!')
    const refused = await expectError(
      await upload(ada, 'one.txt', '1'),
      'attachment_allowance_reached',
      429,
    )
    expect(refused.error.details).toEqual({
      usedBytes: free.monthlyBytes,
      limitBytes: free.monthlyBytes,
    })
  })

  it('never shows one user’s attachment to another', async () => {
    const ada = await t.user('ada')
    const bob = await t.user('bob')
    const mine = await uploaded(ada, 'mine.txt', 'private words')
    await expectError(await bob.get(`/api/assistant/attachments/${mine.id}`), 'not_found', 404)
    await expectError(await bob.get('/api/assistant/attachments/not-a-uuid'), 'not_found', 404)
    const conversation = await newConversation(bob)
    await expectError(
      await sendWith(bob, conversation, 'Read this', [mine.id]),
      'attachment_unavailable',
      409,
    )
  })
})

describe('sending', () => {
  it('sends an image and a text file to the model, which speaks of both, and lists them with the question', async () => {
    const ada = await t.user('ada')
    const image = await uploaded(ada, 'diagram.png', makePng(40, 30))
    const notes = await uploaded(ada, 'notes.md', '# Plan\n\nShip the attachments on Thursday.')
    const conversation = await newConversation(ada)
    const events = await readAnswer(
      await sendWith(ada, conversation, 'What are these?', [image.id, notes.id]),
    )
    const opening = events.find((event) => event.event === 'message')?.data as {
      user: { id: string; attachments?: Attachment[] }
    }
    expect(opening.user.attachments?.map((attachment) => attachment.id)).toEqual([
      image.id,
      notes.id,
    ])
    const text = deltaText(events)
    expect(text).toContain('Image 1 is a PNG image of 40×30 pixels.')
    expect(text).toContain('The file “notes.md” has 7 words.')
    const request = t.openai.control
      .requests()
      .find(
        (entry) =>
          entry.path === '/v1/chat/completions' &&
          entry.lastUserMessage?.startsWith('What are these?') === true,
      )
    // The image costs 85 tokens at low detail on top of the text, and the answer is charged what
    // the model counted.
    const usage = events.find((event) => event.event === 'usage')?.data
    expect(request?.promptTokens).toBeGreaterThan(85)
    expect(usage?.promptTokens).toBe(request?.promptTokens)
    const list = messageListSchema.parse(
      await (await ada.get(`/api/assistant/conversations/${conversation}/messages`)).json(),
    )
    expect(list.messages[0]?.attachments?.map((attachment) => attachment.name)).toEqual([
      'diagram.png',
      'notes.md',
    ])
    expect(list.messages[1]?.attachments).toBeUndefined()
    // Sent once: naming it again is refused, nothing held.
    await expectError(
      await sendWith(ada, conversation, 'Again', [image.id]),
      'attachment_unavailable',
      409,
    )
  })

  it('refuses more files than the plan allows in one message, and text past the history budget', async () => {
    const ada = await t.user('ada')
    const ids = []
    for (let index = 0; index <= free.perMessage; index += 1)
      ids.push((await uploaded(ada, `part-${index}.txt`, `part ${index}`)).id)
    const conversation = await newConversation(ada)
    const many = await expectError(
      await sendWith(ada, conversation, 'All of them', ids),
      'too_many_attachments',
      422,
    )
    expect(many.error.details).toEqual({ limit: free.perMessage })
    const long = await uploaded(ada, 'long.txt', 'word '.repeat(HISTORY_CHARS / 5 + 1))
    await expectError(
      await sendWith(ada, conversation, 'Read it', [long.id]),
      'attachment_text_too_long',
      422,
    )
    const reserved = await t.db.query(
      'select 1 from public.assistant_reservations where user_id = $1',
      [ada.id],
    )
    expect(reserved.rowCount).toBe(0)
    // Still unsent: the same files can go with another message.
    const events = await readAnswer(await sendWith(ada, conversation, 'Two then', ids.slice(0, 2)))
    expect(deltaText(events)).toContain('The file “part-1.txt” has 2 words.')
  })

  it('refuses malformed attachment ids with the field named', async () => {
    const ada = await t.user('ada')
    const conversation = await newConversation(ada)
    for (const attachmentIds of [
      ['nope'],
      'x',
      [crypto.randomUUID(), crypto.randomUUID()].concat(Array(19).fill(crypto.randomUUID())),
    ]) {
      const response = await ada.request(`/api/assistant/conversations/${conversation}/messages`, {
        method: 'POST',
        headers: csrfHeaders,
        body: JSON.stringify({ content: 'Hi', attachmentIds }),
      })
      const body = await expectError(response, 'validation_failed', 422)
      expect(JSON.stringify(body.error.details)).toContain('attachmentIds')
    }
  })
})

describe('deleting', () => {
  it('removes the rows and the stored objects with their conversation', async () => {
    const ada = await t.user('ada')
    const image = await uploaded(ada, 'gone.png', makePng(2, 2))
    const conversation = await newConversation(ada)
    await readAnswer(await sendWith(ada, conversation, 'Look', [image.id]))
    expect(await storedObject(ada.id, image.id)).not.toBeNull()
    const deleted = await ada.send('DELETE', `/api/assistant/conversations/${conversation}`)
    expect(deleted.status).toBe(204)
    const rows = await t.db.query('select 1 from public.assistant_attachments where id = $1', [
      image.id,
    ])
    expect(rows.rowCount).toBe(0)
    expect(await storedObject(ada.id, image.id)).toBeNull()
    const queued = await t.db.query('select 1 from public.assistant_attachment_removals')
    expect(queued.rowCount).toBe(0)
    await expectError(await ada.get(`/api/assistant/attachments/${image.id}`), 'not_found', 404)
  })
})

describe('sweeping', () => {
  it('deletes files uploaded a day ago and never sent, and their objects, but keeps sent ones', async () => {
    const ada = await t.user('ada')
    const stale = await uploaded(ada, 'stale.txt', 'left behind')
    const fresh = await uploaded(ada, 'fresh.txt', 'still a draft')
    const sent = await uploaded(ada, 'sent.txt', 'went with a message')
    await readAnswer(await sendWith(ada, await newConversation(ada), 'Read', [sent.id]))
    await t.db.query(
      `update public.assistant_attachments set created_at = now() - interval '25 hours'
       where id = any($1::uuid[])`,
      [`{${stale.id},${sent.id}}`],
    )
    const sweeper = createAttachments({
      sql: t.db,
      supabase: { url: t.supabase.url, serviceRoleKey: t.supabase.serviceRoleKey },
      entitlementsForUser: async () => entitlementsOf(null),
      clock: t.clock,
      logger: createLogger({ level: 'silent' }),
    })
    expect(await sweeper.sweepRemovals()).toBeGreaterThanOrEqual(1)
    const left = await t.db.query<{ id: string }>(
      'select id from public.assistant_attachments where user_id = $1 order by name',
      [ada.id],
    )
    expect(left.rows.map((row) => row.id)).toEqual([fresh.id, sent.id])
    expect(await storedObject(ada.id, stale.id)).toBeNull()
    expect(await storedObject(ada.id, fresh.id)).not.toBeNull()
  })
})

describe('when Storage is down', () => {
  let down: AssistantTestApp
  beforeAll(async () => {
    // SUPABASE_URL at the default port, where nothing listens in tests.
    down = await startAssistantTestApp({ env: { SUPABASE_URL: 'http://127.0.0.1:9' } })
  }, databaseSetupTimeout)
  afterAll(() => down.finish())

  it('refuses an upload as a service we depend on, counting nothing', async () => {
    const ada = await down.user('ada')
    await expectError(await upload(ada, 'a.txt', 'hello'), 'upstream_unavailable', 503)
    const used = await down.db.query(
      'select used_bytes from public.assistant_attachment_usage where user_id = $1',
      [ada.id],
    )
    expect(used.rows.map((row) => Number(row.used_bytes))).toEqual([0])
    const rows = await down.db.query('select 1 from public.assistant_attachments')
    expect(rows.rowCount).toBe(0)
  })
})

it('answers the upload with the contract’s shape', () => {
  expect(attachmentResponseSchema.shape.attachment).toBeDefined()
})
