// The host's runtime configuration: the only module in src/ that reads import.meta.env. Values are
// set at build time by vite.config.ts from build-env.ts.

export const env = {
  /** A development build: show diagnostics in the page, not only in the console. */
  dev: import.meta.env.DEV,
  remoteTimeoutMs: Number(import.meta.env.TESSERA_REMOTE_TIMEOUT_MS ?? 8000),
  remoteRetryDelayMs: Number(import.meta.env.TESSERA_REMOTE_RETRY_DELAY_MS ?? 500),
}
