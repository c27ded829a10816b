// Types for the runtime module @originjs/vite-plugin-federation generates in a host build.
// Only federation.ts may import it (see that file for why).
declare module 'virtual:__federation__' {
  export interface FederationRemoteConfig {
    url: string | (() => Promise<string>)
    format: 'esm' | 'systemjs' | 'var'
    from: 'vite' | 'webpack'
  }
  export interface FederationContainer {
    get(module: string): Promise<() => unknown>
    init(shareScope: unknown): void
  }
  export function __federation_method_setRemote(name: string, config: FederationRemoteConfig): void
  export function __federation_method_ensure(name: string): Promise<FederationContainer>
  export function __federation_method_getRemote(name: string, module: string): Promise<unknown>
  export function __federation_method_unwrapDefault(module: unknown): unknown
}
