// The page's first reads, answered inside the host's page (decision 050): the BFF runs the reads the
// page would ask for at once (the session, the remotes, the route's `firstReads`) and writes their
// answers into a JSON block of the page; the host answers the first GET of each from it.

/** The id of the page's `<script type="application/json">` block that carries the answers. */
export const FIRST_READS_ELEMENT_ID = 'tessera-first-reads'

/** One read's answer as the page carries it: what a `Response` is rebuilt from. */
export interface InlinedRead {
  status: number
  /** The headers a read's code may look at (its type, its request id, `Tessera-*`), lower-case. */
  headers: Record<string, string>
  body: string
}

/** Path and query (`/api/assistant/conversations?limit=20`) → its answer. */
export type InlinedReads = Record<string, InlinedRead>
