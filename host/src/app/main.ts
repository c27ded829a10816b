// First: it configures zod before any module makes a schema.
import '../lib/zod-without-eval.ts'
import { loadRemotePlugin } from '../features/remotes/federation.ts'
import { env } from '../lib/env.ts'
import { createKernel } from './kernel.ts'
import { renderApp } from './render.tsx'
import { fetchSnapshot } from './snapshot.ts'
// In this order: later sheets override earlier ones, and small screens override them all.
import 'virtual:tessera-theme-tokens.css'
import './app.css'
import './frame.css'
import './pages.css'
import './landing.css'
import './legal.css'
import './toasts.css'
import './small-screens.css'

const kernel = createKernel({ window, loadModule: loadRemotePlugin })
// Tokens go on before the first render so the frame never paints in the wrong colours.
kernel.theme.apply()

// The snapshot request goes out before React renders (index.html preloads it, too); the app
// shows the boot error for this same promise if it fails.
const snapshot = fetchSnapshot(kernel.client)
// The session is read alongside, so a guarded page knows whether to show itself by the time the
// frame renders (the app starts listening for auth events later; this read is not repeated).
void kernel.session.refresh()
renderApp(kernel, { initialSnapshot: snapshot, showDiagnostics: env.dev })
