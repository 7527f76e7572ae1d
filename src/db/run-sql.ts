import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/** The rows of a raw statement, and how many rows it changed (an insert, update or delete). */
export type SqlResult<R> = R[] & { readonly affected: number };

const numbered = new Map<string, { text: string; placeholders: number }>();

/**
 * `statement` with its `?` placeholders numbered `$1…` for PostgreSQL, skipping quoted text, quoted names and
 * comments. Kept per statement: the raw statements are module constants.
 */
function numberPlaceholders(statement: string): { text: string; placeholders: number } {
  const known = numbered.get(statement);
  if (known) return known;
  let text = '';
  let placeholders = 0;
  for (let i = 0; i < statement.length; i++) {
    const c = statement[i]!;
    const closing = c === "'" ? "'" : c === '"' ? '"' : statement.startsWith('--', i) ? '\n' : statement.startsWith('/*', i) ? '*/' : null;
    if (closing !== null) {
      const end = statement.indexOf(closing, i + (closing === '*/' ? 2 : 1));
      const stop = end === -1 ? statement.length : end + closing.length;
      text += statement.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') text += `$${++placeholders}`;
    else text += c;
  }
  const result = { text, placeholders };
  numbered.set(statement, result);
  return result;
}

/**
 * Runs one of the raw statements (the `…_SQL` constants, `?` placeholders) in `em`'s transaction, if it has one,
 * with its values sent as bound parameters. `em.execute` writes each value into the SQL text instead, escaping a
 * string one character at a time: a batch's JSON (250 results, or an import's rows) cost that escaping, a second
 * copy of the whole statement, and PostgreSQL the parsing of it as text.
 */
export async function runSql<R = Record<string, unknown>>(em: EntityManager, statement: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
  const { text, placeholders } = numberPlaceholders(statement);
  if (placeholders !== params.length) throw new Error(`a statement with ${placeholders} placeholders was given ${params.length} values`);
  const result = await em.getKysely().executeQuery<R>(CompiledQuery.raw(text, [...params]));
  return Object.assign(result.rows, { affected: Number(result.numAffectedRows ?? 0n) });
}
