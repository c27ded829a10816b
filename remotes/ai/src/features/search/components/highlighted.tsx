import type { Highlight } from '@tessera/contracts/assistant-search'

/** Text with the searched words in `<mark>`: pieces drawn as text, never parsed as HTML. */
export function Highlighted({ pieces }: { pieces: Highlight }) {
  return (
    <>
      {pieces.map((piece, index) =>
        piece.match ? <mark key={index}>{piece.text}</mark> : <span key={index}>{piece.text}</span>,
      )}
    </>
  )
}
