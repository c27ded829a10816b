import { Component, StrictMode } from 'react'
import type { ErrorInfo, ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import type { Platform } from '@tessera/contracts/platform'
import type { Unmount } from '@tessera/contracts/plugin'
import { PlatformProvider } from './platform.tsx'

class MountErrorBoundary extends Component<
  { remote: string; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    // Surfaces the failure to the host's error reporting, which listens on window.
    console.error(`[${this.props.remote}] render failed`, error, info.componentStack)
  }

  override render() {
    if (this.state.failed) {
      return (
        <div role="alert" className="mount-error">
          This part of the page could not be shown. Reload the page to try again.
        </div>
      )
    }
    return this.props.children
  }
}

let mounts = 0

/**
 * Renders `node` into its own React root inside `el` (so a crash here cannot take down the host)
 * and returns the unmount the contract asks for.
 */
export function mountReact(el: HTMLElement, platform: Platform, node: ReactNode): Unmount {
  // Several roots share one document (slot and page); distinct prefixes keep useId ids unique.
  mounts += 1
  const root = createRoot(el, { identifierPrefix: `${platform.remote.name}-${mounts}-` })
  root.render(
    <StrictMode>
      <PlatformProvider platform={platform}>
        <MountErrorBoundary remote={platform.remote.name}>{node}</MountErrorBoundary>
      </PlatformProvider>
    </StrictMode>,
  )
  return () => root.unmount()
}
