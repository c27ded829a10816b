import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'ai',
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 10 },
  slots: [],
  root: new URL('.', import.meta.url),
})
