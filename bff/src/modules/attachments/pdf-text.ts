/** The text of a PDF, through unpdf (Mozilla's pdf.js built for servers; no worker, offline). */
import { ApiError } from '@tessera/contracts'
import { extractText, getDocumentProxy } from 'unpdf'

/** A PDF's text, pages joined by blank lines; `attachment_no_text` when it has none or is unreadable. */
export async function extractPdfText(bytes: Uint8Array): Promise<string> {
  let pages: string[]
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
    try {
      pages = (await extractText(document, { mergePages: false })).text
    } finally {
      await document.destroy()
    }
  } catch (error) {
    // A damaged or encrypted PDF: nothing can be read from it, which the person is told.
    throw new ApiError('attachment_no_text', {
      details: { reason: error instanceof Error ? error.name : 'unreadable' },
    })
  }
  const text = pages
    .map((page) => page.trim())
    .filter((page) => page !== '')
    .join('\n\n')
  if (text === '') throw new ApiError('attachment_no_text')
  return text
}
