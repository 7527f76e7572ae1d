import type { EntityManager } from '@mikro-orm/postgresql';
import { kysely } from '../db/kysely.ts';
import type { AttemptTranscript, SessionOpening, TranscriptLine } from '../domain/smtp-transcript.ts';
import type { StoredAttempt } from '../db/entities/verification-result.ts';
import { RESULT_COLUMNS, toResultRow } from './repository.ts';
import type { ResultRow } from './views.ts';
import { runSql } from '../db/run-sql.ts';

/** An attempt as a result row keeps it: its session named, not copied. */
export const storedTranscript = (attempts: AttemptTranscript[]): StoredAttempt[] =>
  attempts.map((a) => ({ at: a.at, sessionId: a.opening.id, lines: a.lines }));

/**
 * Stores the sessions the attempts name, each once, in one statement. A session answers addresses
 * across many batches, so a row already stored is left as it is. Raw SQL: the batch travels as one JSON
 * parameter, whatever its size. Parameters: the job id, the sessions as JSON.
 */
export const WRITE_SMTP_SESSIONS_SQL = `
  insert into verification_smtp_session (job_id, id, at, mx_host, ip, lines)
  select ?, v.id, v.at, v.mx_host, v.ip, v.lines
  from jsonb_to_recordset(?::jsonb) as v(id uuid, at timestamptz, mx_host text, ip text, lines jsonb)
  on conflict (job_id, id) do nothing`;

export async function writeSmtpSessions(em: EntityManager, jobId: string, attempts: AttemptTranscript[]) {
  const sessions = new Map<string, SessionOpening>();
  for (const { opening } of attempts) sessions.set(opening.id, opening);
  if (sessions.size === 0) return;
  const payload = [...sessions.values()].map((s) => ({ id: s.id, at: s.at, mx_host: s.mxHost, ip: s.ip, lines: s.lines }));
  await runSql(em, WRITE_SMTP_SESSIONS_SQL, [jobId, JSON.stringify(payload)]);
}

/** One attempt as the API shows it: its session's opening lines, then the address's own. */
export interface TranscriptEntry {
  at: string;
  mxHost: string;
  ip: string;
  lines: TranscriptLine[];
}

/** A job's result for one address (`email` as stored: lower-cased, ASCII domain) with its transcript; null when the job has no such address. */
export async function resultWithTranscript(
  em: EntityManager,
  jobId: string,
  email: string,
): Promise<{ row: ResultRow; transcript: TranscriptEntry[] } | null> {
  const db = kysely(em);
  const result = await db
    .selectFrom('verification_result')
    .select([...RESULT_COLUMNS, 'transcript'])
    .where('job', '=', jobId)
    .where('email', '=', email)
    .executeTakeFirst();
  if (!result) return null;
  const attempts: StoredAttempt[] = result.transcript ?? [];
  const ids = [...new Set(attempts.map((a) => a.sessionId))];
  const sessions = new Map<string, { mxHost: string; ip: string; lines: TranscriptLine[] }>();
  if (ids.length > 0) {
    const rows = await db.selectFrom('verification_smtp_session').select(['id', 'mxHost', 'ip', 'lines']).where('job', '=', jobId).where('id', 'in', ids).execute();
    for (const r of rows) sessions.set(r.id, { mxHost: r.mxHost, ip: r.ip, lines: r.lines });
  }
  const transcript = attempts.map((a) => {
    const session = sessions.get(a.sessionId);
    return {
      at: new Date(a.at).toISOString(),
      mxHost: session?.mxHost ?? '',
      ip: session?.ip ?? '',
      lines: [...(session?.lines ?? []), ...a.lines],
    };
  });
  return { row: toResultRow(result), transcript };
}
