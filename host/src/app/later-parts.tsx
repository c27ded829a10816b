import { paletteDialog } from '../features/command-palette/command-palette.tsx'
import { later } from '../lib/later.tsx'

/**
 * The frame's parts a first page does not show, each in a file of its own (decision 053): the
 * host's entry file stays under the size at which a phone's connection needs one more round
 * trip to bring it.
 */
export const termsPage = later(() =>
  import('../features/legal/terms-page.tsx').then((module) => module.TermsPage),
)
export const privacyPage = later(() =>
  import('../features/legal/privacy-page.tsx').then((module) => module.PrivacyPage),
)
/** Shown only on a preview link or while an override is on (developers' and operators' pages). */
export const overrideArea = later(() =>
  import('../features/override-banner/components/override-area.tsx').then(
    (module) => module.OverrideArea,
  ),
)

/**
 * Fetches the parts a visitor may open next (the footer's pages, the palette) once the first
 * page has been painted, so opening them waits for nothing; the override area waits until shown.
 */
export function prefetchLaterParts(): void {
  termsPage.prefetch()
  privacyPage.prefetch()
  paletteDialog.prefetch()
}
