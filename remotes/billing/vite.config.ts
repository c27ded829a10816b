import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'billing',
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  root: new URL('.', import.meta.url),
})
