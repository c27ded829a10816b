import { describe, expect, it } from 'vitest'
import { ECHO_PREFIX, composeAnswer } from './answer.ts'

const ask = (text: string, sentences = 3) => composeAnswer([{ role: 'user', text }], { sentences })

describe('composeAnswer', () => {
  it('says it is a local model and names what was asked', () => {
    const answer = ask('How do tide pools form?')
    expect(answer.startsWith('(local model) You asked about “How do tide pools form?”.')).toBe(true)
    expect(answer).toMatch(/^- /m)
  })

  it('gives the same answer to the same conversation and another to another', () => {
    expect(ask('Plan a picnic for six')).toBe(ask('Plan a picnic for six'))
    expect(ask('Plan a picnic for six')).not.toBe(ask('Plan a picnic for seven'))
  })

  it('depends on the earlier messages, not only the last one', () => {
    const a = composeAnswer(
      [
        { role: 'system', text: 'Be brief.' },
        { role: 'user', text: 'Name a colour' },
      ],
      { sentences: 3 },
    )
    const b = composeAnswer(
      [
        { role: 'system', text: 'Be verbose.' },
        { role: 'user', text: 'Name a colour' },
      ],
      { sentences: 3 },
    )
    expect(a).not.toBe(b)
  })

  it('adds a fenced code block when the prompt asks for code', () => {
    expect(ask('Write a Python function to reverse words')).toContain('```python\n')
    expect(ask('Show me the SQL for recent orders')).toContain('```sql\n')
    expect(ask('What is a good name for a cat?')).not.toContain('```')
  })

  it('grows with the configured number of sentences', () => {
    expect(ask('Compare rivers and lakes', 6).length).toBeGreaterThan(
      ask('Compare rivers and lakes', 1).length,
    )
  })

  it('repeats a message that starts with the echo prefix word for word', () => {
    const payload = 'Look: <img src=x onerror=alert(1)> and [a link](javascript:alert(1))'
    expect(ask(`${ECHO_PREFIX}${payload}`)).toBe(payload)
  })

  it('shortens a very long question in the opening line', () => {
    const answer = ask('word '.repeat(200))
    expect(answer.split('\n')[0]).toContain('…”')
  })
})
