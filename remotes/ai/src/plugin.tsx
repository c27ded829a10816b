import { defineReactPlugin } from '@tessera/plugin-react/define-react-plugin'
import { UsageBadge } from './features/usage/components/usage-badge.tsx'
import '@tessera/plugin-react/base.css'

// The page (and its Markdown renderer) loads on first visit only: the usage meter in the header,
// shown on every page, stays small.
export default defineReactPlugin({
  name: 'ai',
  routes: () => import('./features/chat/components/assistant-routes.tsx'),
  loading: 'Loading the assistant…',
  slots: { 'header.end': UsageBadge },
})
