/** The email finder's storage: the learned template counts it orders candidates by, and each find's answer. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';
import type { EmailTemplate } from '../domain/email-templates.ts';
import type { FindAnswer } from '../domain/find-answer.ts';
import type { TemplateCounts } from '../domain/finder.ts';

/** The domain's learned counts (CONTRACT §12), from verification jobs' and the finder's own `Valid` results. */
export async function domainTemplateCounts(em: EntityManager, domain: string): Promise<TemplateCounts> {
  const rows = await kysely(em).selectFrom('domain_template_share').select(['template', 'validCount']).where('domain', '=', domain).execute();
  return rows.map((r) => ({ template: r.template as EmailTemplate, validCount: Number(r.validCount) }));
}

/** Every domain's counts summed per template: the global order (one row per template). */
export async function globalTemplateCounts(em: EntityManager): Promise<TemplateCounts> {
  const rows = await kysely(em)
    .selectFrom('domain_template_share')
    .select((eb) => ['template', eb.fn.sum<string>('validCount').as('n')])
    .groupBy('template')
    .execute();
  return rows.map((r) => ({ template: r.template as EmailTemplate, validCount: Number(r.n) }));
}

export async function createFind(em: EntityManager, find: { id: string; organizationId: string; firstName: string; lastName: string; domain: string }) {
  await kysely(em)
    .insertInto('email_find')
    .values({ id: find.id, organization: find.organizationId, firstName: find.firstName, lastName: find.lastName, domain: find.domain, creditsUsed: 0, createdAt: sql`now()` })
    .execute();
}

export async function deleteFind(em: EntityManager, id: string) {
  await kysely(em).deleteFrom('email_find').where('id', '=', id).execute();
}

/** The organization's find: its answer once settled, null while it runs; undefined when there is no such find. */
export async function findAnswerOf(em: EntityManager, organizationId: string, id: string): Promise<FindAnswer | null | undefined> {
  const row = await kysely(em).selectFrom('email_find').select('answer').where('organization', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return row ? ((row.answer as FindAnswer | null) ?? null) : undefined;
}

/** Locks the find for its settling; the answer already recorded (a retried settle), else null. */
export async function lockFind(tx: EntityManager, id: string): Promise<FindAnswer | null> {
  const row = await kysely(tx).selectFrom('email_find').select('answer').where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row) throw new Error(`email find ${id} does not exist`);
  return (row.answer as FindAnswer | null) ?? null;
}

export async function recordAnswer(tx: EntityManager, id: string, answer: FindAnswer) {
  await kysely(tx)
    .updateTable('email_find')
    .set({ answer: answer as unknown as Record<string, unknown>, creditsUsed: answer.creditsUsed, completedAt: sql`now()` })
    .where('id', '=', id)
    .execute();
}
