// A Kysely-built statement compiled once and then run with new values. The hot paths (every
// webhook delivery, every answer's hold) run the same few statements, and building and compiling
// a query (immutable builder nodes, then the compiler's walk) cost more CPU than sending it:
// profiling the webhook benchmark put Kysely at about 7 % of the BFF's time. The SQL stays typed
// and built by Kysely (decision 006); only the compiled text is kept.
import type { Compilable } from 'kysely'
import type { QueryResult, SqlQueryable, SqlValue } from '@tessera/db/sql'

/** A statement's values by name: a plain object type (not an interface), every key present. */
export type StatementValues = Record<string, SqlValue>

type Parameter = { value: string } | { constant: SqlValue }

// Never in real values: Stripe ids, types and our own strings carry no NUL (Postgres text cannot).
const standInOf = (name: string) => `\u0000tessera-statement:${name}\u0000`

function compile<V extends StatementValues, O>(
  build: (values: V) => Compilable<O>,
  names: string[],
): { sql: string; parameters: Parameter[] } {
  const standIns = new Map(names.map((name) => [standInOf(name), name]))
  const compiled = build(
    Object.fromEntries(names.map((name) => [name, standInOf(name)])) as V,
  ).compile()
  if (compiled.sql.includes('\u0000'))
    throw new Error('A reusable statement put one of its values into the SQL text.')
  const used = new Set<string>()
  const parameters = compiled.parameters.map((parameter): Parameter => {
    if (typeof parameter === 'string') {
      const name = standIns.get(parameter)
      if (name !== undefined) {
        used.add(name)
        return { value: name }
      }
      if (parameter.includes('\u0000'))
        throw new Error('A reusable statement changed one of its values before using it.')
    }
    if (parameter === null || ['string', 'number', 'boolean'].includes(typeof parameter))
      return { constant: parameter as SqlValue }
    // An object made while building (a Date from a value, say) would be frozen into the statement.
    throw new Error('A reusable statement may only pass its values through, or constants.')
  })
  const unused = names.filter((name) => !used.has(name))
  if (unused.length > 0)
    throw new Error(`A reusable statement did not use its values ${unused.join(', ')} as given.`)
  return { sql: compiled.sql, parameters }
}

/**
 * A statement whose shape never changes: `build` gets stand-ins for its values and must pass each
 * one to Kysely unchanged (no branching on them, no arithmetic, no formatting; a second shape is a
 * second statement). Compiled on the first run, checked then, and reused after.
 */
export function reusableStatement<V extends StatementValues, O>(
  build: (values: V) => Compilable<O>,
): (on: SqlQueryable, values: V) => Promise<QueryResult<O>> {
  let compiled: { sql: string; parameters: Parameter[] } | null = null
  return async (on, values) => {
    compiled ??= compile(build, Object.keys(values))
    const parameters = compiled.parameters.map((parameter) =>
      'value' in parameter ? (values[parameter.value] as SqlValue) : parameter.constant,
    )
    return await on.query<O>(compiled.sql, parameters)
  }
}
