/**
 * What an uploaded file is, from its bytes: PNG, JPEG, WebP and GIF images (with their pixel
 * size), PDF, and text (valid UTF-8 without NUL). The name's extension is never trusted, only
 * compared: a file named as one of these kinds whose bytes are another is refused as a lie.
 */
import { ApiError } from '@tessera/contracts'
import type { AttachmentKind } from '@tessera/contracts'

export interface FileType {
  kind: AttachmentKind
  contentType:
    'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'application/pdf' | 'text/plain'
  width: number | null
  height: number | null
  /** The decoded text of a text file (without a byte order mark). */
  text: string | null
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((byte, index) => bytes[at + index] === byte)
const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0))

const u16be = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)
const u16le = (bytes: Uint8Array, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8)
const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16)
const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 65536 + u16be(bytes, at + 2)

type Size = { width: number; height: number } | null
const sized = (width: number, height: number): Size =>
  width > 0 && height > 0 ? { width, height } : null

function pngSize(bytes: Uint8Array): Size {
  // The IHDR chunk comes first: its width and height follow the signature and chunk header.
  if (!startsWith(bytes, ascii('IHDR'), 12)) return null
  return sized(u32be(bytes, 16), u32be(bytes, 20))
}

function jpegSize(bytes: Uint8Array): Size {
  let at = 2
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null
    const marker = bytes[at + 1] ?? 0
    // Fill bytes, and markers without a length (restart, start of image).
    if (marker === 0xff) {
      at += 1
      continue
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2
      continue
    }
    // Start of frame (any kind but DHT, JPG and DAC, which share the range): its size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return sized(u16be(bytes, at + 7), u16be(bytes, at + 5))
    if (marker === 0xda || marker === 0xd9) return null
    at += 2 + u16be(bytes, at + 2)
  }
  return null
}

function webpSize(bytes: Uint8Array): Size {
  if (startsWith(bytes, ascii('VP8 '), 12) && startsWith(bytes, [0x9d, 0x01, 0x2a], 23))
    return sized(u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff)
  if (startsWith(bytes, ascii('VP8L'), 12) && bytes[20] === 0x2f) {
    const [b1 = 0, b2 = 0, b3 = 0, b4 = 0] = bytes.subarray(21, 25)
    return sized(1 + (((b2 & 0x3f) << 8) | b1), 1 + (((b4 & 0x0f) << 10) | (b3 << 2) | (b2 >> 6)))
  }
  if (startsWith(bytes, ascii('VP8X'), 12)) return sized(1 + u24le(bytes, 24), 1 + u24le(bytes, 27))
  return null
}

const image = (contentType: FileType['contentType'], size: Size): FileType | null =>
  size === null ? null : { kind: 'image', contentType, ...size, text: null }

/** The file's type from its bytes, or null when it is none of the kinds accepted. */
export function sniffFileType(bytes: Uint8Array): FileType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return image('image/png', pngSize(bytes))
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return image('image/jpeg', jpegSize(bytes))
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a')))
    return image('image/gif', sized(u16le(bytes, 6), u16le(bytes, 8)))
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8))
    return image('image/webp', webpSize(bytes))
  if (startsWith(bytes, ascii('%PDF-')))
    return { kind: 'pdf', contentType: 'application/pdf', width: null, height: null, text: null }
  if (bytes.includes(0)) return null
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    return { kind: 'text', contentType: 'text/plain', width: null, height: null, text }
  } catch (error) {
    // Not valid UTF-8: some binary format we do not take.
    if (error instanceof TypeError) return null
    throw error
  }
}

const imageExtensions: Record<string, FileType['contentType']> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
}

/** Extensions of text files people attach: prose, data and code. */
const textExtensions = new Set(
  (
    'txt text md markdown csv tsv json jsonl ndjson log ini cfg conf toml yaml yml xml html htm css scss ' +
    'js mjs cjs ts tsx jsx py rb go rs java kt c h cc cpp hpp cs php sh bash zsh sql swift r lua pl svg'
  ).split(' '),
)

/** What a name's extension claims: a content type, 'text', or null (no claim). */
function claimOf(name: string): FileType['contentType'] | 'text' | null {
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return null
  const extension = name.slice(dot + 1).toLowerCase()
  if (extension in imageExtensions) return imageExtensions[extension] ?? null
  if (extension === 'pdf') return 'application/pdf'
  return textExtensions.has(extension) ? 'text' : null
}

/**
 * The type of an upload: refused as unsupported when its bytes are no accepted kind, and as a
 * mismatch when its name claims a kind (by extension) that its bytes are not.
 */
export function fileTypeOf(name: string, bytes: Uint8Array): FileType {
  const found = sniffFileType(bytes)
  const claim = claimOf(name)
  if (found === null) {
    if (claim === null) throw new ApiError('attachment_type_unsupported')
    throw new ApiError('attachment_type_mismatch', {
      details: { named: claim === 'text' ? 'text/plain' : claim, found: 'unknown' },
    })
  }
  const honest =
    claim === null || (claim === 'text' ? found.kind === 'text' : claim === found.contentType)
  if (!honest)
    throw new ApiError('attachment_type_mismatch', {
      details: { named: claim === 'text' ? 'text/plain' : claim, found: found.contentType },
    })
  return found
}
