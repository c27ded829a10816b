// The Stripe-hosted pages a person visits: Checkout (`session.url`) and the Billing Portal
// (`portal.url`). Plain server-rendered HTML forms, so they work without JavaScript and can be
// driven by Playwright through labels and roles.
import { Hono, type Context } from 'hono'
import type { CardField, RejectedCard } from './cards.ts'
import type { StripeEngine } from './engine.ts'
import { StripeApiError } from './errors.ts'
import { parseForm, type FormObject } from './form.ts'
import type { Invoice, Subscription } from './objects.ts'

export interface PagesOptions {
  engine: StripeEngine
  businessName: string
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** A piece of HTML that is already safe; everything else interpolated into `h` is escaped. */
class Safe {
  constructor(readonly value: string) {}
}

type Part = Safe | string | number | null | undefined | false | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof Safe) return part.value
  if (Array.isArray(part)) return part.map(render).join('')
  return escapeHtml(String(part))
}

function h(strings: TemplateStringsArray, ...parts: Part[]): Safe {
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

function page(title: string, body: Safe): string {
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

interface CardFormValues {
  email?: string
  number?: string
  expiry?: string
  cvc?: string
  name?: string
}

function field(
  id: CardField,
  label: string,
  attrs: string,
  value: string | undefined,
  error: RejectedCard | null,
): Safe {
  const invalid = error?.field === id
  return h`<div>
<label for="${id}">${label}</label>
<input id="${id}" name="${id}" ${new Safe(attrs)} value="${value ?? ''}"${
    invalid ? new Safe(' aria-invalid="true" aria-describedby="card-error"') : ''
  } required>
</div>`
}

function cardFields(values: CardFormValues, error: RejectedCard | null, withEmail: boolean): Safe {
  return h`${
    withEmail
      ? field('email', 'Email', 'type="email" autocomplete="email"', values.email, error)
      : ''
  }
${field('number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234"', values.number, error)}
<div class="row">
${field('expiry', 'Expiry (MM / YY)', 'autocomplete="cc-exp" placeholder="MM / YY"', values.expiry, error)}
${field('cvc', 'CVC', 'inputmode="numeric" autocomplete="cc-csc" placeholder="123"', values.cvc, error)}
</div>
${field('name', 'Name on card', 'autocomplete="cc-name"', values.name, error)}`
}

const TEST_CARD_HINT = h`<p class="hint">Test cards: 4242 4242 4242 4242 succeeds ·
4000 0000 0000 0002 is declined · 4000 0000 0000 0341 pays now and fails at the next renewal.
Any future expiry, any CVC.</p>`

function str(form: FormObject, key: string): string {
  const value = form[key]
  return typeof value === 'string' ? value : ''
}

function html(c: Context, body: string, status: 200 | 400 | 402 | 404 = 200) {
  c.header('Cache-Control', 'no-store')
  return c.html(body, status)
}

function errorPage(
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

function statusLabel(sub: Subscription): string {
  switch (sub.status) {
    case 'trialing':
      return 'Trialing'
    case 'past_due':
      return 'Past due'
    case 'active':
      return 'Active'
    case 'canceled':
      return 'Canceled'
    default:
      return sub.status
  }
}

export type PagesEnv = { Variables: { requestId: string } }

export function createPages(options: PagesOptions): Hono<PagesEnv> {
  const { engine, businessName } = options
  const pages = new Hono<PagesEnv>()

  const checkoutPage = (
    c: Context,
    id: string,
    values: CardFormValues,
    error: RejectedCard | null,
  ) => {
    const summary = engine.checkoutSummary(id)
    const { session } = summary
    const first = summary.lines[0]
    const title = first ? `Subscribe to ${first.productName}` : 'Subscribe'
    if (session.status === 'complete') {
      return html(
        c,
        page(
          'Payment complete',
          h`<h1>Thanks for subscribing</h1><p>This checkout is complete.</p>${
            session.success_url
              ? h`<p><a href="${session.success_url.split('{CHECKOUT_SESSION_ID}').join(session.id)}">Continue to ${businessName}</a></p>`
              : ''
          }`,
        ),
      )
    }
    if (session.status === 'expired') {
      return html(
        c,
        page(
          'Checkout expired',
          h`<h1>This checkout has expired</h1><p>Start again from ${businessName}.</p>${
            session.cancel_url
              ? h`<p><a href="${session.cancel_url}">Back to ${businessName}</a></p>`
              : ''
          }`,
        ),
      )
    }
    const trial = summary.trialPeriodDays
    const body = h`
${session.cancel_url ? h`<p><a href="${session.cancel_url}">Cancel</a> <span class="muted">and return to ${businessName}</span></p>` : ''}
<section aria-labelledby="summary-heading">
<h1 id="summary-heading">${title}</h1>
${
  trial
    ? h`<p class="price">${trial} days free</p><p class="muted">Then ${summary.totalText} ${summary.intervalText}</p>`
    : h`<p class="price">${summary.totalText}</p><p class="muted">${summary.intervalText}</p>`
}
<ul>${summary.lines.map((line) => h`<li>${line.quantity > 1 ? `${line.quantity} × ` : ''}${line.productName} — ${line.priceText}</li>`)}</ul>
${summary.email ? h`<p class="muted">Billed to ${summary.email}</p>` : ''}
</section>
<form class="pay" method="post" action="/checkout/${session.id}" novalidate>
<h2>Pay with card</h2>
${error ? h`<p class="alert" role="alert" id="card-error">${error.message}</p>` : ''}
${cardFields(values, error, summary.needsEmail)}
<button type="submit">Pay and subscribe</button>
</form>
${TEST_CARD_HINT}`
    return html(
      c,
      page(`${title} · ${businessName}`, body),
      error ? (error.decline ? 402 : 400) : 200,
    )
  }

  pages.get('/checkout/:id', (c) => {
    const id = c.req.param('id')
    if (!engine.state.checkoutSessions[id]) {
      return errorPage(c, 404, 'Checkout not found', 'This checkout link is not valid.')
    }
    return checkoutPage(c, id, {}, null)
  })

  pages.post('/checkout/:id', async (c) => {
    const id = c.req.param('id')
    const session = engine.state.checkoutSessions[id]
    if (!session) return errorPage(c, 404, 'Checkout not found', 'This checkout link is not valid.')
    const form = parseForm(await c.req.text())
    const values: CardFormValues = {
      email: str(form, 'email'),
      number: str(form, 'number'),
      expiry: str(form, 'expiry'),
      cvc: str(form, 'cvc'),
      name: str(form, 'name'),
    }
    if (session.status !== 'open') return checkoutPage(c, id, {}, null)
    const result = engine.completeCheckout(
      id,
      {
        number: values.number ?? '',
        expiry: values.expiry ?? '',
        cvc: values.cvc ?? '',
        name: values.name ?? '',
        email: values.email ?? '',
      },
      { requestId: c.get('requestId'), idempotencyKey: null },
    )
    if (!result.ok) return checkoutPage(c, id, values, result.rejection)
    return c.redirect(result.redirectUrl ?? `/checkout/${id}`, 303)
  })

  // ------------------------------------------------------------ billing portal

  const NOTICES: Record<string, (sub: Subscription | undefined) => string> = {
    canceled: (sub) =>
      sub?.cancel_at
        ? `Your plan will be canceled on ${formatDate(sub.cancel_at)}.`
        : 'Your plan was canceled.',
    resumed: () => 'Your plan will continue. It is no longer set to cancel.',
    changed: (sub) => {
      const price = sub?.items.data[0]?.price
      return price ? `Your plan is now ${engine.productName(price)}.` : 'Your plan was changed.'
    },
    card_updated: () => 'Your card was updated.',
  }

  const invoiceRow = (invoice: Invoice) =>
    h`<tr><td>${formatDate(invoice.created)}</td><td>${engine.formatAmount(invoice.total, invoice.currency)}</td><td>${invoice.status === 'open' ? 'Payment failed' : invoice.status.charAt(0).toUpperCase() + invoice.status.slice(1)}</td></tr>`

  const subscriptionSection = (portalId: string, sub: Subscription) => {
    const item = sub.items.data[0]
    const price = item?.price
    const periodEnd = item?.current_period_end ?? sub.created
    const base = `/portal/${portalId}/subscriptions/${sub.id}`
    const others = engine.plans().filter((p) => p.id !== price?.id)
    const dateLine = sub.cancel_at
      ? h`<dt>Cancels on</dt><dd>${formatDate(sub.cancel_at)}</dd>`
      : sub.status === 'trialing' && sub.trial_end
        ? h`<dt>Trial ends on</dt><dd>${formatDate(sub.trial_end)}</dd>`
        : h`<dt>Renews on</dt><dd>${formatDate(periodEnd)}</dd>`
    return h`<section aria-labelledby="plan-${sub.id}">
<h2 id="plan-${sub.id}">Current plan</h2>
<p><strong>${price ? engine.productName(price) : 'Unknown plan'}</strong> — ${price ? engine.describePrice(price) : ''}</p>
<dl><dt>Status</dt><dd>${statusLabel(sub)}</dd>${dateLine}</dl>
${sub.status === 'past_due' ? h`<p class="alert" role="alert">Your last payment failed. Update your card below to keep your plan.</p>` : ''}
<div class="actions">
${
  sub.cancel_at_period_end || sub.cancel_at
    ? h`<form method="post" action="${base}/resume"><button type="submit">Resume plan</button></form>`
    : h`<form method="post" action="${base}/cancel"><button type="submit" class="danger">Cancel plan</button></form>`
}
</div>
${
  others.length > 0
    ? h`<h3>Change plan</h3><div class="actions">${others.map(
        (p) =>
          h`<form method="post" action="${base}/change"><input type="hidden" name="price" value="${p.id}"><button type="submit" class="secondary">Switch to ${engine.productName(p)} (${engine.describePrice(p)})</button></form>`,
      )}</div>`
    : ''
}
</section>`
  }

  const portalPage = (
    c: Context,
    id: string,
    notice: string | null,
    error: RejectedCard | null,
    values: CardFormValues,
  ) => {
    const view = engine.portalView(id)
    const returnUrl = view.portal.return_url
    const customer = view.customer
    if (!customer) {
      return errorPage(c, 404, 'Customer not found', 'This customer no longer exists.', returnUrl)
    }
    const noticeSub = view.subscriptions[0]
    const noticeText = notice && NOTICES[notice] ? NOTICES[notice](noticeSub) : null
    const pm = engine.describePaymentMethod(
      noticeSub?.default_payment_method ?? customer.invoice_settings.default_payment_method,
    )
    const body = h`
${returnUrl ? h`<p><a href="${returnUrl}">Return to ${businessName}</a></p>` : ''}
<h1>Manage your subscription</h1>
<p class="muted">${customer.email ?? customer.name ?? customer.id}</p>
${noticeText ? h`<p class="notice" role="status">${noticeText}</p>` : ''}
${
  view.subscriptions.length > 0
    ? view.subscriptions.map((sub) => subscriptionSection(id, sub))
    : h`<p>You have no active subscription.</p>`
}
<section aria-labelledby="payment-heading">
<h2 id="payment-heading">Payment method</h2>
<p>${pm ?? 'No card on file.'}</p>
<form class="pay" method="post" action="/portal/${id}/payment-method" novalidate>
${error ? h`<p class="alert" role="alert" id="card-error">${error.message}</p>` : ''}
${cardFields(values, error, false)}
<button type="submit">Update card</button>
</form>
${TEST_CARD_HINT}
</section>
${
  view.invoices.length > 0
    ? h`<section aria-labelledby="invoices-heading"><h2 id="invoices-heading">Invoice history</h2>
<table><thead><tr><th scope="col">Date</th><th scope="col">Amount</th><th scope="col">Status</th></tr></thead>
<tbody>${view.invoices.map(invoiceRow)}</tbody></table></section>`
    : ''
}`
    return html(
      c,
      page(`Billing · ${businessName}`, body),
      error ? (error.decline ? 402 : 400) : 200,
    )
  }

  const withPortal = (c: Context<PagesEnv>, id: string, run: (id: string) => Response) => {
    const portal = engine.state.portalSessions[id]
    if (!portal) return errorPage(c, 404, 'Session not found', 'This billing link is not valid.')
    try {
      return run(id)
    } catch (error) {
      // A refused action (an ended subscription, an unknown plan) is shown to the person, not thrown.
      if (error instanceof StripeApiError) {
        return errorPage(c, 400, 'That did not work', error.message, `/portal/${id}`)
      }
      throw error
    }
  }

  pages.get('/portal/:id', (c) =>
    withPortal(c, c.req.param('id'), (id) =>
      portalPage(c, id, c.req.query('notice') ?? null, null, {}),
    ),
  )

  const action = (name: string, run: (portalId: string, subId: string, form: FormObject) => void) =>
    pages.post(`/portal/:id/subscriptions/:sub/${name}`, async (c) => {
      const form = parseForm(await c.req.text())
      return withPortal(c, c.req.param('id'), (id) => {
        run(id, c.req.param('sub'), form)
        return c.redirect(
          `/portal/${id}?notice=${name === 'cancel' ? 'canceled' : name === 'resume' ? 'resumed' : 'changed'}`,
          303,
        )
      })
    })

  action('cancel', (id, sub) => engine.portalCancel(id, sub))
  action('resume', (id, sub) => engine.portalResume(id, sub))
  action('change', (id, sub, form) => engine.portalChangePlan(id, sub, str(form, 'price')))

  pages.post('/portal/:id/payment-method', async (c) => {
    const form = parseForm(await c.req.text())
    const values: CardFormValues = {
      number: str(form, 'number'),
      expiry: str(form, 'expiry'),
      cvc: str(form, 'cvc'),
      name: str(form, 'name'),
    }
    return withPortal(c, c.req.param('id'), (id) => {
      const result = engine.portalUpdateCard(id, {
        number: values.number ?? '',
        expiry: values.expiry ?? '',
        cvc: values.cvc ?? '',
        name: values.name ?? '',
      })
      if (!result.ok) return portalPage(c, id, null, result.rejection, values)
      return c.redirect(`/portal/${id}?notice=card_updated`, 303)
    })
  })

  return pages
}
