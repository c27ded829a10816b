import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import type { RegistrySnapshot } from '@tessera/contracts'
import { App } from './app.tsx'
import type { Kernel } from './kernel.ts'

/** Mounts the host's React tree into `#root`. */
export function renderApp(
  kernel: Kernel,
  options: { initialSnapshot: Promise<RegistrySnapshot>; showDiagnostics: boolean },
): void {
  const container = document.getElementById('root')
  if (!container) throw new Error('index.html must contain <div id="root">')
  createRoot(container).render(
    <StrictMode>
      <App kernel={kernel} {...options} />
    </StrictMode>,
  )
}
