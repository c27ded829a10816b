import { createContext, use, useState } from 'react'
import type { ReactNode } from 'react'

/** Why an email went out: the check-your-email page words itself (and resends) by it. */
export type SentEmailKind = 'signup' | 'magiclink' | 'recovery' | 'email_change'

export interface SentEmail {
  email: string
  kind: SentEmailKind
  /** The page the link returns to, when the person came from one. */
  next: string | null
}

type SentEmailContextValue = [SentEmail | null, (sent: SentEmail | null) => void]

const SentEmailContext = createContext<SentEmailContextValue | null>(null)

/**
 * Remembers, for this page load only, the address the last email went to. It is not put in the
 * URL, so the address does not end up in history or in logs.
 */
export function SentEmailProvider({ children }: { children: ReactNode }) {
  const value = useState<SentEmail | null>(null)
  return <SentEmailContext value={value}>{children}</SentEmailContext>
}

export function useSentEmail(): SentEmailContextValue {
  const value = use(SentEmailContext)
  if (value === null) throw new Error('useSentEmail must be used inside SentEmailProvider')
  return value
}
