// Reading Storage request bodies as hosted Storage does: small JSON bodies, and uploads as
// multipart/form-data or a raw body, both capped so an oversized one is answered, not reset.
import '@tessera/contracts/zod-messages'
import type { Context } from 'hono'
import { z } from 'zod/mini'
import { entityTooLarge, invalidRequest } from './storage-errors.ts'

/** JSON bodies (bucket options, list and remove requests) are small; uploads are not JSON. */
const maxJsonBytes = 1024 * 1024

export async function readJson(c: Context): Promise<unknown> {
  const bytes = await readBodyCapped(c.req.raw, maxJsonBytes)
  if (bytes === null) throw invalidRequest(`The JSON body is larger than ${maxJsonBytes} bytes.`)
  const text = new TextDecoder().decode(bytes)
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw invalidRequest(
      `The body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

export function parseWith<T>(schema: z.core.$ZodType<T>, value: unknown): T {
  const result = z.safeParse(schema, value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.')
  throw invalidRequest(`${where}: ${issue?.message ?? 'invalid'}`)
}

/**
 * Reads a request body of at most `cap` bytes. A larger body is still read to its end (and
 * dropped), so the client gets the answer instead of a reset connection; then null.
 */
async function readBodyCapped(request: Request, cap: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  let over = Number.isFinite(declared) && declared > cap
  const chunks: Uint8Array[] = []
  let size = 0
  if (request.body !== null) {
    const reader = request.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > cap) over = true
      if (!over) chunks.push(value)
    }
  }
  if (over) return null
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return body
}

function parseUserMetadata(json: string | null | undefined): Record<string, unknown> | null {
  if (json === null || json === undefined || json === '') return null
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    throw invalidRequest(
      `metadata is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidRequest('metadata must be a JSON object')
  return value as Record<string, unknown>
}

/** `x-metadata` is base64 of UTF-8 JSON. */
function decodeBase64Text(encoded: string): string {
  let binary: string
  try {
    binary = atob(encoded)
  } catch (error) {
    throw invalidRequest(
      `x-metadata is not base64: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)))
}

/** Room for multipart boundaries and the small fields storage-js sends beside the file. */
const multipartOverhead = 64 * 1024

export interface IncomingFile {
  content: Uint8Array
  contentType: string
  cacheControl: string
  userMetadata: Record<string, unknown> | null
}

/**
 * The uploaded file, read the way hosted Storage reads it: multipart/form-data (what storage-js
 * sends for a Blob or File: fields `cacheControl`, `metadata`, then the file) or a raw body whose
 * `content-type`, `cache-control` and base64 `x-metadata` headers describe it.
 */
export async function readIncomingFile(c: Context, limit: number): Promise<IncomingFile> {
  const contentType = c.req.header('content-type') ?? ''
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    const raw = await readBodyCapped(c.req.raw, limit + multipartOverhead)
    if (raw === null) throw entityTooLarge(limit)
    let form: FormData
    try {
      form = await new Response(raw as Uint8Array<ArrayBuffer>, {
        headers: { 'content-type': contentType },
      }).formData()
    } catch (error) {
      throw invalidRequest(
        `No content provided: the multipart body could not be read (${error instanceof Error ? error.message : String(error)})`,
      )
    }
    let file: File | undefined
    for (const value of form.values()) {
      if (typeof value !== 'string') {
        file = value
        break
      }
    }
    if (file === undefined) throw invalidRequest('No content provided')
    if (file.size > limit) throw entityTooLarge(limit)
    const field = (name: string) => {
      const value = form.get(name)
      return typeof value === 'string' ? value : undefined
    }
    const cacheTime = field('cacheControl')
    return {
      content: new Uint8Array(await file.arrayBuffer()),
      contentType: field('contentType') || file.type || 'application/octet-stream',
      cacheControl: cacheTime ? `max-age=${cacheTime}` : 'no-cache',
      userMetadata: parseUserMetadata(field('metadata') ?? field('userMetadata')),
    }
  }
  const content = await readBodyCapped(c.req.raw, limit)
  if (content === null) throw entityTooLarge(limit)
  const encodedMetadata = c.req.header('x-metadata')
  return {
    content,
    contentType: contentType || 'application/octet-stream',
    cacheControl: c.req.header('cache-control') ?? 'no-cache',
    userMetadata:
      encodedMetadata === undefined ? null : parseUserMetadata(decodeBase64Text(encodedMetadata)),
  }
}
