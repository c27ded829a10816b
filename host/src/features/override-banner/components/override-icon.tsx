/** A small "swapped in" mark beside each override line; decorative. */
export function OverrideIcon() {
  return (
    <span className="host-override__icon" aria-hidden="true">
      <svg
        viewBox="0 0 24 24"
        width="16"
        height="16"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M7 4 3 8l4 4M3 8h13a4 4 0 0 1 0 8h-2M17 20l4-4-4-4M21 16H8" />
      </svg>
    </span>
  )
}
