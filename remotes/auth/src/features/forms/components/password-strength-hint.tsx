import { passwordStrength } from '../validation.ts'

/** A small meter and sentence under a new-password field. */
export function PasswordStrengthHint({ password }: { password: string }) {
  const { strength, hint } = passwordStrength(password)
  const level = { 'too-short': 0, weak: 1, fair: 2, strong: 3 }[strength]
  return (
    <span className={`strength strength--${strength}`}>
      <span className="strength__meter" aria-hidden="true">
        {[1, 2, 3].map((step) => (
          <span
            key={step}
            className={step <= level ? 'strength__bar strength__bar--on' : 'strength__bar'}
          />
        ))}
      </span>
      <span className="strength__text">{hint}</span>
    </span>
  )
}
