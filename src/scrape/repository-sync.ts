import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { companyDomainOf } from '../domain/company-domain.ts';
import { notFound } from '../errors.ts';
import { LeadInputSchema } from '../domain/lead-input.ts';
import { kysely } from '../db/kysely.ts';
import { insertLeads } from '../db/repos/leads.ts';
import { createList } from '../db/repos/lists.ts';
import { clearItemsSynced, itemsAfter, markItemsSynced, type ScrapeItemRow } from './repository-items.ts';

const PAGE = 1000;

export interface ScrapeSyncResult {
  listId: string;
  listName: string;
  leadsCount: number;
}

const toLead = (item: ScrapeItemRow) =>
  LeadInputSchema.parse({
    firstName: item.firstName,
    lastName: item.lastName,
    title: item.role,
    company: item.company,
    companyDomain: companyDomainOf(item.domain),
    networkUrl: item.networkUrl,
  });

/**
 * Turns the job's found, not yet synced items into leads of the job's list, creating the list on the
 * first sync. The job row stays locked (`FOR UPDATE`) for the whole transaction, so concurrent syncs
 * of one job run one after the other: the second sees the first one's list and synced markers and
 * never creates a second list or a duplicate lead.
 */
export async function syncScrapeJob(em: EntityManager, organizationId: string, jobId: string): Promise<ScrapeSyncResult> {
  return em.transactional(async (tx) => {
    const job = await kysely(tx)
      .selectFrom('scrape_job')
      .select(['name', 'list'])
      .where('id', '=', jobId)
      .where('organization', '=', organizationId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw notFound('Scrape job');

    let listId = job.list;
    let listName: string;
    if (listId) {
      ({ name: listName } = await kysely(tx).selectFrom('lead_list').select('name').where('id', '=', listId).executeTakeFirstOrThrow());
    } else {
      // No list yet, or the user deleted it (and its leads with it): a new list gets every found item.
      const list = await createList(tx, organizationId, { name: job.name });
      listId = list.id;
      listName = list.name;
      await kysely(tx).updateTable('scrape_job').set({ list: listId, updatedAt: sql`now()` }).where('id', '=', jobId).execute();
      await clearItemsSynced(tx, jobId);
    }

    let leadsCount = 0;
    let afterRow = 0;
    for (;;) {
      const items = await itemsAfter(tx, jobId, afterRow, PAGE, { foundOnly: true, unsyncedOnly: true });
      if (items.length === 0) break;
      await insertLeads(tx, organizationId, listId, items.map(toLead), 'scrape');
      await markItemsSynced(tx, items.map((item) => item.id));
      leadsCount += items.length;
      afterRow = items.at(-1)!.rowNumber;
    }
    return { listId, listName, leadsCount };
  });
}
