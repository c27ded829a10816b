// The hosted Checkout page (`session.url`): the plan, the card form, and "Pay and subscribe".
import type { Context, Hono } from 'hono'
import type { RejectedCard } from '../cards.ts'
import { parseForm } from '../form.ts'
import { TEST_CARD_HINT, cardFields, str, type CardFormValues } from './card-form.ts'
import { errorPage, h, html, page } from './html.ts'
import type { PagesEnv, PagesOptions } from './options.ts'

export function registerCheckoutPage(pages: Hono<PagesEnv>, options: PagesOptions): void {
  const { engine, businessName } = options

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
}
