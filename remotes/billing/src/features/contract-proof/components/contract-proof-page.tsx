import { useId } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform, useRoute, useSession } from '@tessera/plugin-react/platform'
import { LiveEventLog } from './live-event-log.tsx'
import { ThemeSwatches } from './theme-swatches.tsx'
import '../contract-proof.css'

const pages = [
  { path: '/', label: 'Overview' },
  { path: '/plans', label: 'Plans' },
]

function RemoteFacts() {
  const platform = usePlatform()
  const route = useRoute()
  const headingId = useId()
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>This remote</h2>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{platform.remote.name}</dd>
        <dt>Version</dt>
        <dd>{platform.remote.version}</dd>
        <dt>Contract</dt>
        <dd>{platform.contract}</dd>
        <dt>Base path</dt>
        <dd>
          <code>{platform.basePath}</code>
        </dd>
        <dt>Sub-route</dt>
        <dd>
          <code>{route}</code>
        </dd>
      </dl>
    </section>
  )
}

function SessionSummary() {
  const session = useSession()
  const headingId = useId()
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Session</h2>
      {session.status === 'signed-in' ? (
        <p>
          Signed in as <strong>{session.user.displayName ?? session.user.email}</strong>
          {session.user.displayName ? <> ({session.user.email})</> : null}.
        </p>
      ) : (
        <p>{session.status === 'loading' ? 'Checking your session…' : 'Not signed in.'}</p>
      )}
    </section>
  )
}

function NotifyCard() {
  const platform = usePlatform()
  const headingId = useId()
  const { name, version } = platform.remote
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Notifications</h2>
      <p>The host shows notices, so they look the same whichever remote sends them.</p>
      <button
        type="button"
        onClick={() =>
          platform.notify({ kind: 'success', message: `Hello from ${name} ${version}.` })
        }
      >
        Send a test notice
      </button>
    </section>
  )
}

/** Billing's page until plans and checkout arrive: it shows what the platform hands a remote. */
export default function ContractProofPage() {
  const platform = usePlatform()
  const route = useRoute()
  return (
    <div className="proof-page">
      <header className="proof-page__header">
        <p className="eyebrow">Billing</p>
        <h1>Plans and billing</h1>
        <p>
          Subscriptions and checkout come next. Until then this page shows that the billing remote
          runs on the platform: its own version, the host's theme and the live event stream.
        </p>
        <nav aria-label="Billing pages">
          <ul className="subnav">
            {pages.map((page) => (
              <li key={page.path}>
                <AppLink
                  to={page.path === '/' ? platform.basePath : `${platform.basePath}${page.path}`}
                  aria-current={route === page.path ? 'page' : undefined}
                >
                  {page.label}
                </AppLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <div className="proof-page__grid">
        <RemoteFacts />
        <SessionSummary />
        <NotifyCard />
        <LiveEventLog />
        <ThemeSwatches />
      </div>
    </div>
  )
}
