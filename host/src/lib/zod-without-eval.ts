import { z } from 'zod/mini'

// Zod compiles its object parsers with `new Function` where it may, and finds out by trying one:
// under the page's CSP (no 'unsafe-eval') that try is refused, and the browser reports a CSP
// violation on every load (to /api/csp-reports, and as an issue in the page). Jitless parsing
// needs no eval. The setting lives on `globalThis`, so it also holds for the zod bundled in a
// remote; it must run before any schema is made, hence the first import of the entry.
z.config({ jitless: true })
