// The hosted Billing Portal page (`portal.url`): the plan and its status, cancel or resume, switch
// plan, update the card, and the invoice history.
import type { Context, Hono } from 'hono'
import type { RejectedCard } from '../cards.ts'
import { StripeApiError } from '../errors.ts'
import { parseForm, type FormObject } from '../form.ts'
import type { Invoice } from '../invoice-objects.ts'
import type { Subscription } from '../objects.ts'
import { TEST_CARD_HINT, cardFields, str, type CardFormValues } from './card-form.ts'
import { errorPage, formatDate, h, html, page } from './html.ts'
import type { PagesEnv, PagesOptions } from './options.ts'

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

export function registerPortalPage(pages: Hono<PagesEnv>, options: PagesOptions): void {
  const { engine, businessName } = options

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
}
