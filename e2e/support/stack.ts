/** Ports and environment of the stack the end-to-end suite starts for itself. */
const bffPort = 18787
const cdnPort = 18788

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
