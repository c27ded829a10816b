export {
  defineRemoteConfig,
  sharedSingletons,
  type RemoteBuildOptions,
} from './define-remote-config.ts'
export { scopeCss, scopeSelectorFor, type ScopeCssOptions } from './scope-css.ts'
export {
  buildDescriptor,
  descriptorPlugin,
  hashFiles,
  writeDescriptor,
  REMOTE_ENTRY,
} from './descriptor.ts'
