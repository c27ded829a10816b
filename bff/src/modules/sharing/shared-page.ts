/**
 * The page a share link opens, rendered here as plain HTML (docs/decisions/030): no script at
 * all, so a visitor gets none of the assistant's code, needs no session and no registry snapshot.
 * Every piece of text is escaped; Markdown is kept readable rather than rendered (code fences
 * become code blocks, the rest keeps its line breaks). `noindex` in the page and its headers.
 */
import { errorCatalogue } from '@tessera/contracts'
import type { SharedConversation } from '@tessera/contracts'

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text as HTML text: the only way anything a person or a model wrote reaches the page. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char] ?? char)
}

// Light and dark by the reader's setting; contrast at least 4.5:1 in both (axe checks it).
const style = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #57606a; --line: #d0d7de;
  --answer: #f6f8fa; --code: #eef1f4; --link: #0a58ca; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9ba6b2; --line: #30363d; --answer: #161b22;
    --code: #1f2630; --link: #6cb6ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main, footer { max-width: 46rem; margin: 0 auto; padding: 1rem; }
header { border-bottom: 1px solid var(--line); }
a { color: var(--link); }
.brand { font-weight: 700; text-decoration: none; }
h1 { font-size: 1.5rem; line-height: 1.3; margin: 0.5rem 0; overflow-wrap: anywhere; }
.about { color: var(--muted); margin: 0 0 1.5rem; }
ol { list-style: none; margin: 0; padding: 0; }
li { margin: 0 0 1rem; padding: 0.75rem 1rem; border: 1px solid var(--line); border-radius: 0.5rem; }
li.assistant { background: var(--answer); }
h2 { font-size: 0.875rem; margin: 0 0 0.25rem; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
pre { background: var(--code); padding: 0.75rem; border-radius: 0.375rem; overflow-x: auto;
  margin: 0.5rem 0; white-space: pre; }
code { font: 0.875rem/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
.partial { color: var(--muted); font-style: italic; margin: 0.25rem 0 0; }
footer { color: var(--muted); font-size: 0.875rem; }
`

/** The page's CSP: nothing but its own inline style (by hash), no script, no frames, no forms. */
let policy: Promise<string> | undefined
export function sharedPagePolicy(): Promise<string> {
  policy ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(style)).then((digest) => {
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)))
    return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  })
  return policy
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<header><a class="brand" href="/">Tessera</a></header>
${body}
</body>
</html>
`
}

/** A message's text: fenced code as code blocks, the rest as text with its line breaks. */
function messageHtml(content: string): string {
  const parts = content.split(/^```[^\n]*$/m)
  return parts
    .map((part, index) => {
      const text = part.replace(/^\n|\n$/g, '')
      if (text === '') return ''
      return index % 2 === 1
        ? `<pre><code>${escapeHtml(text)}</code></pre>`
        : `<p class="text">${escapeHtml(text)}</p>`
    })
    .join('')
}

/** The shared conversation, read-only. */
export function sharedConversationPage(shared: SharedConversation): string {
  const by = shared.author === null ? 'Shared' : `Shared by ${escapeHtml(shared.author)}`
  const when = new Date(shared.sharedAt).toISOString().slice(0, 10)
  const messages = shared.messages
    .map(
      (message) =>
        `<li class="${message.role}"><h2>${message.role === 'user' ? 'Question' : 'Answer'}</h2>${messageHtml(message.content)}${
          message.status === 'partial'
            ? '<p class="partial">This answer was stopped before it finished.</p>'
            : ''
        }</li>`,
    )
    .join('\n')
  return document(
    `${shared.title} · Shared conversation · Tessera`,
    `<main>
<h1>${escapeHtml(shared.title)}</h1>
<p class="about">${by} on <time datetime="${shared.sharedAt}">${when}</time>. A read-only copy of a Tessera assistant conversation, shown as it is now.</p>
${shared.messages.length === 0 ? '<p>This conversation has no messages yet.</p>' : `<ol aria-label="Messages">\n${messages}\n</ol>`}
</main>
<footer>Made with the <a href="/">Tessera</a> assistant.</footer>`,
  )
}

/** The page of a link that does not work (never made, revoked, or its conversation deleted). */
export function sharedNotFoundPage(): string {
  return document(
    'This link no longer works · Tessera',
    `<main>
<h1>This link no longer works</h1>
<p>${escapeHtml(errorCatalogue.share_not_found.message)}</p>
<p><a href="/">Go to Tessera</a></p>
</main>`,
  )
}

/** The page of a visitor who opened too many links at once. */
export function sharedRateLimitedPage(retryAfterSeconds: number): string {
  return document(
    'Too many requests · Tessera',
    `<main>
<h1>Too many requests</h1>
<p>${escapeHtml(errorCatalogue.rate_limited.message)} You can reload this page in ${retryAfterSeconds} seconds.</p>
</main>`,
  )
}
