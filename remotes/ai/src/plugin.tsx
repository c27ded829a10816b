import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import ContractProofPage from './features/contract-proof/components/contract-proof-page.tsx'
import { mountReact } from '@tessera/plugin-react/mount-react'
import './styles/base.css'

// No slot: the plugin loads only when its page is shown, so the page is not split off.
export default definePlugin({
  name: 'ai',
  contract: CONTRACT_MAJOR,
  routes: {
    mount: (el, platform) => mountReact(el, platform, <ContractProofPage />),
  },
})
