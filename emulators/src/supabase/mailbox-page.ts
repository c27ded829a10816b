/** Server-rendered pages of the mailbox: a list of caught emails and one email. */
import type { MailMessage } from './mailbox-store.ts'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  )

const typeLabels: Record<MailMessage['type'], string> = {
  signup: 'Sign-up confirmation',
  recovery: 'Password reset',
  magiclink: 'Magic link',
  email_change: 'Email change',
  app: 'Sent by the app',
}

const styles = `
:root { color-scheme: light dark; --fg: #1b1b1f; --muted: #555a66; --bg: #f6f7f9; --card: #fff; --line: #d8dbe2; --accent: #2f4fd8; }
@media (prefers-color-scheme: dark) { :root { --fg: #eceef3; --muted: #a9afbd; --bg: #15161a; --card: #1f2127; --line: #343842; --accent: #8ea2ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
header { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; justify-content: space-between; }
h1 { font-size: 1.5rem; margin: 0; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
label { display: block; font-weight: 600; font-size: 0.9rem; }
input, button { font: inherit; min-height: 2.75rem; border-radius: 0.5rem; border: 1px solid var(--line); padding: 0.4rem 0.75rem; background: var(--card); color: var(--fg); }
button { cursor: pointer; }
ol.messages { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 0.75rem 1rem; }
.card a.subject { font-weight: 600; font-size: 1.05rem; text-decoration: none; display: block; padding: 0.25rem 0; }
.card a.subject:hover { text-decoration: underline; }
.meta { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.5rem 0 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
.code { font-size: 1.5rem; letter-spacing: 0.25em; font-weight: 700; }
ul.links { padding-left: 1.25rem; overflow-wrap: anywhere; }
iframe { width: 100%; min-height: 22rem; border: 1px solid var(--line); border-radius: 0.75rem; background: #fff; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 1rem; }
.empty { color: var(--muted); }
`

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
${body}
</body>
</html>`
}

function formatTime(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>`
}

/** The list page: newest first, with a recipient filter and a way to empty the mailbox. */
export function renderMessageList(
  messages: readonly MailMessage[],
  filter: string | undefined,
): string {
  const items = messages
    .map(
      (message) => `<li class="card">
  <a class="subject" href="/messages/${escapeHtml(message.id)}">${escapeHtml(message.subject)}</a>
  <div class="meta">To ${escapeHtml(message.to)} · ${escapeHtml(typeLabels[message.type])} · ${formatTime(message.created_at)}</div>
</li>`,
    )
    .join('\n')
  const heading = filter === undefined ? 'Mailbox' : `Mailbox for ${filter}`
  const body = `<header>
  <h1>${escapeHtml(heading)}</h1>
  <div class="toolbar">
    <form method="get" action="/" role="search">
      <label for="to">Recipient</label>
      <input id="to" name="to" type="email" autocomplete="off" value="${escapeHtml(filter ?? '')}" placeholder="someone@example.com">
      <button type="submit">Filter</button>
    </form>
    <a href="/">Show all</a>
    <form method="post" action="/messages/delete">
      <button type="submit">Delete all emails</button>
    </form>
  </div>
</header>
<main>
  <p class="meta" aria-live="polite">${messages.length === 1 ? '1 email' : `${messages.length} emails`}, newest first. <a href="">Refresh</a></p>
  ${messages.length === 0 ? '<p class="empty">No emails yet. Sign up or ask for a link, then refresh.</p>' : `<ol class="messages">${items}</ol>`}
</main>`
  return layout(heading, body)
}

/** One email: its links and code first (what people come for), then the email as sent. */
export function renderMessage(message: MailMessage): string {
  const links = message.links
    .map((link) => `<li><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></li>`)
    .join('\n')
  const body = `<header>
  <a href="/">← All emails</a>
</header>
<main>
  <h1>${escapeHtml(message.subject)}</h1>
  <dl class="meta">
    <dt>To</dt><dd>${escapeHtml(message.to)}</dd>
    <dt>From</dt><dd>${escapeHtml(message.from)}</dd>
    <dt>Sent</dt><dd>${formatTime(message.created_at)}</dd>
    <dt>Kind</dt><dd>${escapeHtml(typeLabels[message.type])}</dd>
  </dl>
  <section aria-labelledby="links-heading">
    <h2 id="links-heading">Links in this email</h2>
    <ul class="links">${links}</ul>
    ${message.otp === null ? '' : `<p>Code: <span class="code">${escapeHtml(message.otp)}</span></p>`}
  </section>
  <section aria-labelledby="html-heading">
    <h2 id="html-heading">As sent</h2>
    <iframe title="The email as sent" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${escapeHtml(message.html)}"></iframe>
  </section>
  <details>
    <summary>Plain-text version</summary>
    <pre>${escapeHtml(message.text)}</pre>
  </details>
</main>`
  return layout(message.subject, body)
}

export function renderNotFound(): string {
  return layout(
    'Email not found',
    '<main><h1>Email not found</h1><p><a href="/">Back to all emails</a></p></main>',
  )
}
