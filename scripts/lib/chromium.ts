/** How this project launches Debian's Chromium headless (the e2e suite and the benchmarks). */
export const chromiumPath = '/usr/bin/chromium'

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
