import { useEffect, useState } from 'react'
import type { RegistrySnapshot } from '@tessera/contracts'
import type { BffClient } from '../../../lib/platform/bff-client.ts'
import type { Router } from '../../../lib/router/router.ts'
import { startOverride, stopOverride } from '../api/overrides.ts'
import { overrideRequestFrom, searchWithoutOverride } from '../override-link.ts'
import { OverrideBanner } from './override-banner.tsx'
import { OverridePrompt } from './override-prompt.tsx'
import '../override-banner.css'

interface OverrideAreaProps {
  client: BffClient
  router: Router
  snapshot: RegistrySnapshot
  /** Loads the page again; `location.reload()` unless a test gives another. */
  reload?: () => void
}

/** The top of the frame: a preview link's question, then the banner of active overrides. */
export function OverrideArea({
  client,
  router,
  snapshot,
  reload = () => window.location.reload(),
}: OverrideAreaProps) {
  const [request, setRequest] = useState(() => overrideRequestFrom(router.current().search))
  // A link to an override already in place has nothing to ask.
  const alreadyOn =
    request !== null &&
    snapshot.remotes.some(
      (remote) =>
        remote.name === request.remote &&
        remote.override !== undefined &&
        remote.entryUrl === request.entryUrl,
    )

  /** Takes the link's parameters out of the address, so a reload or a bookmark asks nothing. */
  const dropLinkParams = () => {
    const here = router.current()
    router.navigate(`${here.pathname}${searchWithoutOverride(here.search)}${here.hash}`, {
      replace: true,
    })
  }
  const forgetLink = () => {
    dropLinkParams()
    setRequest(null)
  }

  useEffect(() => {
    if (alreadyOn) forgetLink()
  })

  return (
    <>
      {request !== null && !alreadyOn && (
        <OverridePrompt
          request={request}
          onAccept={async () => {
            await startOverride(client, request)
            dropLinkParams()
            reload()
          }}
          onDismiss={forgetLink}
        />
      )}
      <OverrideBanner
        remotes={snapshot.remotes}
        onStop={(remote) => stopOverride(client, remote)}
        reload={reload}
      />
    </>
  )
}
