import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'ai',
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 10 },
  slots: ['header.end'],
  root: new URL('.', import.meta.url),
})
