const suggestions = [
  'Explain what a micro-frontend is, with a small example.',
  'Write a haiku about streaming answers.',
  'Give me three tips for writing clear error messages.',
]

/** The empty new conversation: what the assistant does, and a few messages to start with. */
export function Welcome({ onPick }: { onPick: (text: string) => void }) {
  return (
    <div className="welcome">
      <span className="welcome__mark" aria-hidden="true" />
      <p className="welcome__title">What can I help you with?</p>
      <p className="welcome__text muted">
        Answers stream in as they are written. Stop one at any time; what arrived is kept.
      </p>
      <ul className="welcome__suggestions" aria-label="Suggestions">
        {suggestions.map((text) => (
          <li key={text}>
            <button type="button" className="welcome__suggestion" onClick={() => onPick(text)}>
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}
