// A small HTML kit for the hosted pages: an escaping template tag, the page frame and its style,
// and the plain responses (no caching, error pages).
import type { Context } from 'hono'

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** A piece of HTML that is already safe; everything else interpolated into `h` is escaped. */
export class Safe {
  constructor(readonly value: string) {}
}

type Part = Safe | string | number | null | undefined | false | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof Safe) return part.value
  if (Array.isArray(part)) return part.map(render).join('')
  return escapeHtml(String(part))
}

export function h(strings: TemplateStringsArray, ...parts: Part[]): Safe {
  let out = strings[0] ?? ''
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '')
  })
  return new Safe(out)
}

export function formatDate(unix: number): string {
  return new Date(unix * 1000).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  })
}

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 0; background: #f6f8fa; color: #1a1f36; }
main { max-width: 30rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgb(0 0 0 / 0.12); }
.test-mode { display: inline-block; background: #ffde92; color: #5c3b00; font-size: 0.75rem; font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 4px; }
h1 { font-size: 1.4rem; margin: 0.75rem 0 0.25rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
.price { font-size: 2rem; font-weight: 700; margin: 0.25rem 0; }
.muted { color: #545969; }
label { display: block; font-weight: 600; margin: 0.9rem 0 0.25rem; }
input { box-sizing: border-box; width: 100%; font: inherit; padding: 0.55rem 0.7rem; border: 1px solid #8792a2; border-radius: 6px; }
input[aria-invalid="true"] { border-color: #c0123c; }
.row { display: flex; gap: 1rem; } .row > div { flex: 1; }
button { font: inherit; font-weight: 600; padding: 0.6rem 1.1rem; border: 0; border-radius: 6px; background: #533afd; color: #fff; cursor: pointer; }
button.secondary { background: #e3e8ee; color: #1a1f36; }
button.danger { background: #c0123c; }
form.pay button { width: 100%; margin-top: 1.25rem; padding: 0.8rem; }
.alert { background: #fde8ec; color: #8a0022; border-radius: 6px; padding: 0.6rem 0.8rem; margin: 1rem 0 0; }
.notice { background: #e6f4ea; color: #0b5d1e; border-radius: 6px; padding: 0.6rem 0.8rem; margin: 1rem 0 0; }
.hint { font-size: 0.85rem; color: #545969; margin-top: 1rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.3rem 1rem; } dt { font-weight: 600; } dd { margin: 0; }
table { width: 100%; border-collapse: collapse; font-size: 0.9rem; } th, td { text-align: left; padding: 0.35rem 0.25rem; border-bottom: 1px solid #e3e8ee; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.75rem 0; } .actions form { margin: 0; }
a { color: #533afd; }
`

export function page(title: string, body: Safe): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<span class="test-mode">Test mode · Stripe stand-in</span>
${body.value}
</main>
</body>
</html>`
}

export function html(c: Context, body: string, status: 200 | 400 | 402 | 404 = 200) {
  c.header('Cache-Control', 'no-store')
  return c.html(body, status)
}

export function errorPage(
  c: Context,
  status: 400 | 404,
  title: string,
  message: string,
  backUrl?: string | null,
) {
  return html(
    c,
    page(
      title,
      h`<h1>${title}</h1><p>${message}</p>${backUrl ? h`<p><a href="${backUrl}">Go back</a></p>` : ''}`,
    ),
    status,
  )
}
