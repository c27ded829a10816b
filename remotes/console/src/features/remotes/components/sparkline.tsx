import { formatList } from '@tessera/plugin-react/format'

interface SparklineProps {
  /** Errors per minute, oldest first. */
  values: readonly number[]
  /** What the line is about, for its text alternative ("billing 1.3.0"). */
  subject: string
}

const WIDTH = 120
const HEIGHT = 28

/**
 * Errors per minute as a small inline line (no chart library), with a text alternative that says
 * what the line shows: the total, the peak, and every minute's count.
 */
export function Sparkline({ values, subject }: SparklineProps) {
  const total = values.reduce((sum, value) => sum + value, 0)
  const peak = Math.max(0, ...values)
  const minutes = values.length
  const description =
    minutes === 0
      ? `No error counts for ${subject} yet.`
      : total === 0
        ? `No errors for ${subject} in the last ${minutes} minutes.`
        : `${total} errors for ${subject} in the last ${minutes} minutes, at most ${peak} in one minute; per minute, oldest first: ${formatList(values.map(String))}.`
  const step = minutes > 1 ? WIDTH / (minutes - 1) : 0
  const y = (value: number) => HEIGHT - 2 - (peak === 0 ? 0 : (value / peak) * (HEIGHT - 4))
  const points = values.map((value, index) => `${(index * step).toFixed(1)},${y(value).toFixed(1)}`)
  return (
    <svg
      className={total > 0 ? 'sparkline sparkline--errors' : 'sparkline'}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={description}
    >
      <line className="sparkline__base" x1="0" x2={WIDTH} y1={HEIGHT - 1} y2={HEIGHT - 1} />
      {minutes > 1 && <polyline className="sparkline__line" points={points.join(' ')} />}
      {minutes === 1 && (
        <circle className="sparkline__dot" cx={WIDTH / 2} cy={y(values[0] ?? 0)} r="2" />
      )}
    </svg>
  )
}
