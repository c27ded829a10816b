import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'console',
  basePath: '/console',
  nav: { label: 'Console', order: 40 },
  slots: [],
  // For operators only: the build writes it to the descriptor, and the BFF leaves the console out
  // of everyone else's snapshot (listed as restricted, so the host says "not allowed").
  audience: 'operators',
  root: new URL('.', import.meta.url),
  // The operators' console pages.
  firstRouteBudgetKiB: 24,
})
