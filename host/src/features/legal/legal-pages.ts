// The legal pages' chunk (legal-page.tsx loads it when one is first shown).
export { PrivacyPage } from './privacy-page.tsx'
export { TermsPage } from './terms-page.tsx'
