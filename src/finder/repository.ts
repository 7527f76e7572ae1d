/** The email finder's storage: the learned template counts it orders candidates by, and each find's answer. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailTemplate } from '../domain/email-templates.ts';
import type { FindAnswer } from '../domain/find-answer.ts';
import type { TemplateCounts } from '../domain/finder.ts';

/** The domain's learned counts (CONTRACT §12), from verification jobs' and the finder's own `Valid` results. */
export async function domainTemplateCounts(em: EntityManager, domain: string): Promise<TemplateCounts> {
  const rows = await em.execute(`select template, valid_count from domain_template_share where domain = ?`, [domain]);
  return rows.map((r) => ({ template: r.template as EmailTemplate, validCount: Number(r.valid_count) }));
}

/** Every domain's counts summed per template: the global order (one row per template). */
export async function globalTemplateCounts(em: EntityManager): Promise<TemplateCounts> {
  const rows = await em.execute(`select template, sum(valid_count) as n from domain_template_share group by template`);
  return rows.map((r) => ({ template: r.template as EmailTemplate, validCount: Number(r.n) }));
}

export async function createFind(em: EntityManager, find: { id: string; organizationId: string; firstName: string; lastName: string; domain: string }) {
  await em.execute(
    `insert into email_find (id, organization_id, first_name, last_name, domain, credits_used, created_at) values (?, ?, ?, ?, ?, 0, now())`,
    [find.id, find.organizationId, find.firstName, find.lastName, find.domain],
  );
}

export async function deleteFind(em: EntityManager, id: string) {
  await em.execute(`delete from email_find where id = ?`, [id]);
}

/** The organization's find: its answer once settled, null while it runs; undefined when there is no such find. */
export async function findAnswerOf(em: EntityManager, organizationId: string, id: string): Promise<FindAnswer | null | undefined> {
  const [row] = await em.execute(`select answer from email_find where organization_id = ? and id = ?`, [organizationId, id]);
  return row ? ((row.answer as FindAnswer | null) ?? null) : undefined;
}

/** Locks the find for its settling; the answer already recorded (a retried settle), else null. */
export async function lockFind(tx: EntityManager, id: string): Promise<FindAnswer | null> {
  const [row] = await tx.execute(`select answer from email_find where id = ? for update`, [id]);
  if (!row) throw new Error(`email find ${id} does not exist`);
  return (row.answer as FindAnswer | null) ?? null;
}

export async function recordAnswer(tx: EntityManager, id: string, answer: FindAnswer) {
  await tx.execute(`update email_find set answer = ?::jsonb, credits_used = ?, completed_at = now() where id = ?`, [
    JSON.stringify(answer),
    answer.creditsUsed,
    id,
  ]);
}
