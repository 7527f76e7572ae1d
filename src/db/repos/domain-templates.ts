/** The address templates learned per domain (`domain_template_share`): verification adds what its Valid results teach, the finder too. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailTemplate } from '../../domain/email-templates.ts';
import { runSql } from '../run-sql.ts';

/**
 * Adds a batch of learned counts to the stored ones, in one statement over a JSON recordset. Raw SQL: the batch
 * travels as one parameter whatever its size, and the conflict adds to the stored count.
 */
export const ADD_TEMPLATE_COUNTS_SQL = `
  insert into domain_template_share (domain, template, valid_count, updated_at)
  select v.domain, v.template, v.n, now() from jsonb_to_recordset(?::jsonb) as v(domain text, template text, n int)
  on conflict (domain, template) do update set valid_count = domain_template_share.valid_count + excluded.valid_count, updated_at = now()`;

export async function addTemplateCounts(em: EntityManager, counts: Array<{ domain: string; template: EmailTemplate; n: number }>) {
  if (counts.length === 0) return;
  await runSql(em, ADD_TEMPLATE_COUNTS_SQL, [JSON.stringify(counts)]);
}
