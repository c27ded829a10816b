import { ApiError } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { makePdf, makePng } from '../../testing/files.ts'
import { fileTypeOf, sniffFileType } from './file-types.ts'

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(
    parts.flatMap((part) =>
      typeof part === 'string' ? [...part].map((char) => char.charCodeAt(0)) : part,
    ),
  )

/** A JPEG's start: SOI, an APP0 segment, then a baseline frame of 640 × 480. */
const jpeg = bytes(
  [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10],
  'JFIF',
  [0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
  [0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03],
)
const gif = bytes('GIF89a', [0x20, 0x00, 0x10, 0x00], [0, 0, 0])
const webpLossy = bytes(
  'RIFF',
  [0, 0, 0, 0],
  'WEBPVP8 ',
  [0, 0, 0, 0],
  [0, 0, 0, 0x9d, 0x01, 0x2a],
  [0x90, 0x01, 0xc8, 0x00],
)
const webpExtended = bytes(
  'RIFF',
  [0, 0, 0, 0],
  'WEBPVP8X',
  [10, 0, 0, 0],
  [0, 0, 0, 0],
  [0xff, 0x03, 0x00, 0x7f, 0x02, 0x00],
)

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return error.code
    throw error
  }
  return undefined
}

describe('sniffFileType', () => {
  it('reads the four image formats and their pixel size from their bytes', () => {
    expect(sniffFileType(makePng(7, 5))).toMatchObject({
      contentType: 'image/png',
      width: 7,
      height: 5,
    })
    expect(sniffFileType(jpeg)).toMatchObject({
      contentType: 'image/jpeg',
      width: 640,
      height: 480,
    })
    expect(sniffFileType(gif)).toMatchObject({ contentType: 'image/gif', width: 32, height: 16 })
    expect(sniffFileType(webpLossy)).toMatchObject({
      contentType: 'image/webp',
      width: 400,
      height: 200,
    })
    expect(sniffFileType(webpExtended)).toMatchObject({
      contentType: 'image/webp',
      width: 1024,
      height: 640,
    })
  })

  it('takes PDFs by signature and text only as UTF-8 without NUL', () => {
    expect(sniffFileType(makePdf('x'))?.kind).toBe('pdf')
    expect(sniffFileType(new TextEncoder().encode('\ufeffnaïve, ok'))?.text).toBe('naïve, ok')
    expect(sniffFileType(bytes('abc', [0], 'def'))).toBeNull()
    expect(sniffFileType(bytes([0xc3, 0x28]))).toBeNull()
  })
})

describe('fileTypeOf', () => {
  it('believes the bytes and refuses a name that claims another kind', () => {
    expect(fileTypeOf('main.rs', bytes('fn main() {}')).kind).toBe('text')
    expect(fileTypeOf('no-extension', makePng(1, 1)).kind).toBe('image')
    expect(fileTypeOf('photo.JPG', jpeg).contentType).toBe('image/jpeg')
    expect(codeOf(() => fileTypeOf('photo.jpg', makePng(1, 1)))).toBe('attachment_type_mismatch')
    expect(codeOf(() => fileTypeOf('data.csv', gif))).toBe('attachment_type_mismatch')
    expect(codeOf(() => fileTypeOf('report.pdf', bytes('%PS-Adobe')))).toBe(
      'attachment_type_mismatch',
    )
    expect(codeOf(() => fileTypeOf('archive.zip', bytes('PK', [3, 4, 0, 0xff])))).toBe(
      'attachment_type_unsupported',
    )
  })
})
