/// <reference types="vite/client" />

// Build-time values written by vite.config.ts (`define`), read only by lib/env.ts.
interface ImportMetaEnv {
  readonly TESSERA_REMOTE_TIMEOUT_MS?: number
  readonly TESSERA_REMOTE_RETRY_DELAY_MS?: number
}
