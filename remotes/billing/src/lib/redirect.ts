/**
 * Leaves the app for a Stripe-hosted page (checkout, portal). One place, so tests can watch where
 * the browser would have gone: happy-dom cannot follow a cross-origin page load.
 */
export const externalRedirect = {
  go(url: string): void {
    window.location.assign(url)
  },
}
