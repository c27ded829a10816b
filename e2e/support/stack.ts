/** Ports and environment of the stack the end-to-end suite starts for itself. */
// Overridable so two checkouts can run their suites side by side.
const bffPort = Number(process.env.E2E_BFF_PORT ?? 18787)
const cdnPort = Number(process.env.E2E_CDN_PORT ?? 18788)

export const e2eStack = {
  appUrl: `http://localhost:${bffPort}`,
  cdnUrl: `http://localhost:${cdnPort}`,
  env: {
    PORT: String(bffPort),
    CDN_PORT: String(cdnPort),
    TESSERA_DATA_DIR: '.tessera/e2e',
    LOG_LEVEL: 'warn',
  },
}
