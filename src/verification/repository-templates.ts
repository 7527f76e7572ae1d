import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';

/** Marks the job's templates as learned; false when they already were (a retried activity learns nothing twice). */
export async function claimTemplateLearning(em: EntityManager, jobId: string): Promise<boolean> {
  const rows = await kysely(em)
    .updateTable('verification_job')
    .set({ templatesLearnedAt: sql`now()` })
    .where('id', '=', jobId)
    .where('templatesLearnedAt', 'is', null)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/**
 * A page of the list's leads (by id) that have both names, with their address when the job found it Valid. The
 * leads drive the read, (list_id, id) then (job_id, email): each page costs its own rows, whatever the job's size.
 * `lastId` is null once the list is done.
 */
export async function namedValidAddresses(
  em: EntityManager,
  jobId: string,
  listId: string,
  afterId: string,
  limit: number,
): Promise<{ rows: Array<{ email: string; domain: string; firstName: string; lastName: string }>; lastId: string | null }> {
  const db = kysely(em);
  // Plain SQL: the typed builder's row mapping walks every property of lead for each row (see repository-work.ts).
  const { rows: leads } = await sql<{ id: string; emailKey: string | null; firstName: string | null; lastName: string | null }>`
    select id, email_key as "emailKey", first_name as "firstName", last_name as "lastName" from lead
     where list_id = ${listId} and id > ${afterId} order by id limit ${limit}`.execute(em.getKysely());
  const named = leads.filter((l) => l.emailKey && l.firstName && l.lastName);
  const valid =
    named.length === 0
      ? []
      : await db
          .selectFrom('verification_result')
          .select(['email', 'domain'])
          .where('job', '=', jobId)
          .where('email', 'in', named.map((l) => l.emailKey!))
          .where('result', '=', 'Valid')
          .execute();
  const domainOf = new Map(valid.map((v) => [v.email, v.domain]));
  const seen = new Set<string>();
  const rows = named.flatMap((l) => {
    const email = l.emailKey!;
    const domain = domainOf.get(email);
    if (domain === undefined || seen.has(email)) return [];
    seen.add(email);
    return [{ email, domain, firstName: l.firstName!, lastName: l.lastName! }];
  });
  return { rows, lastId: leads.length < limit ? null : leads[leads.length - 1]!.id };
}
