import { lazy, Suspense } from 'react'

type PageProps = { onNavigate(to: string): void }

/** What a legal page says when its code could not be fetched (offline, a deploy in between). */
function LegalPageUnavailable() {
  return (
    <section className="host-page-message" role="alert">
      <h1 className="host-page-message__title">This page could not be loaded</h1>
      <p className="host-page-message__body">
        Check your connection and reload the page to read it.
      </p>
    </section>
  )
}

// Their own chunk: read by few, so no other page downloads their text (decision 050).
const load = (page: 'terms' | 'privacy') =>
  lazy(() =>
    import('./legal-pages.ts').then(
      (pages) => ({ default: page === 'terms' ? pages.TermsPage : pages.PrivacyPage }),
      () => ({ default: LegalPageUnavailable }),
    ),
  )
const TermsPage = load('terms')
const PrivacyPage = load('privacy')

/** `/terms` or `/privacy`, loaded when first shown, with the host's loading state meanwhile. */
export function LegalPage({ page, onNavigate }: PageProps & { page: 'terms' | 'privacy' }) {
  return (
    <Suspense
      fallback={
        <div className="host-loading" role="status">
          <span className="host-spinner" aria-hidden="true" />
          <span>Loading…</span>
        </div>
      }
    >
      {page === 'terms' ? (
        <TermsPage onNavigate={onNavigate} />
      ) : (
        <PrivacyPage onNavigate={onNavigate} />
      )}
    </Suspense>
  )
}
