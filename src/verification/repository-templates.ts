import type { EntityManager } from '@mikro-orm/postgresql';

/** Marks the job's templates as learned; false when they already were (a retried activity learns nothing twice). */
export async function claimTemplateLearning(em: EntityManager, jobId: string): Promise<boolean> {
  const rows = await em.execute(
    `update verification_job set templates_learned_at = now() where id = ? and templates_learned_at is null returning id`,
    [jobId],
  );
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
  const leads = await em.execute(
    `select id, email_key, first_name, last_name from lead
     where list_id = ? and id > ? order by id limit ?`,
    [listId, afterId, limit],
  );
  const named = leads.filter((l) => l.email_key && l.first_name && l.last_name);
  const valid =
    named.length === 0
      ? []
      : await em.execute(`select email, domain from verification_result where job_id = ? and email in (?) and result = 'Valid'`, [
          jobId,
          named.map((l) => l.email_key as string),
        ]);
  const domainOf = new Map(valid.map((v) => [v.email as string, v.domain as string]));
  const seen = new Set<string>();
  const rows = named.flatMap((l) => {
    const email = l.email_key as string;
    const domain = domainOf.get(email);
    if (domain === undefined || seen.has(email)) return [];
    seen.add(email);
    return [{ email, domain, firstName: l.first_name as string, lastName: l.last_name as string }];
  });
  return { rows, lastId: leads.length < limit ? null : (leads[leads.length - 1]!.id as string) };
}
