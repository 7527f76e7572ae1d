import type { EntityManager } from '@mikro-orm/postgresql';
import { kysely } from '../db/kysely.ts';
import type { CachedProfile } from './repository-profiles.ts';
import { applyCredits, InsufficientCreditsError } from '../accounts/credits.ts';
import { CREDIT_PRICES, orderedFields, type EnrichmentField } from '../domain/enrichment.ts';

const FIELD_NAMES: Record<EnrichmentField, string> = { workEmail: 'work email', personalEmail: 'personal email', phone: 'phone' };

export interface ChargeTarget {
  organizationId: string;
  /** Idempotency keys are `<keyPrefix>:<field>`: one charge per datum, however often this runs. */
  keyPrefix: string;
  reason: string;
  refType: string;
  refId: string;
}

export interface Delivery {
  /** What the caller receives: paid now, or taken from the cache for free. */
  values: Partial<Record<EnrichmentField, string>>;
  charged: EnrichmentField[];
  fromCache: EnrichmentField[];
  /** Verified data the balance could not pay for. */
  withheld: EnrichmentField[];
  credits: number;
  /** A charge failed for lack of credits. */
  shortOfCredits: boolean;
}

/**
 * Turns verified finds into delivered data inside the caller's transaction: fields the organization's
 * fresh cache entry settles are free, every other found datum is charged through `applyCredits`
 * (ledger row + conditional balance update, idempotent by key). With `stopWhenShort`, the first datum
 * that cannot be paid withholds it and everything after it; otherwise each datum is tried on its own.
 */
export async function deliverFinds(
  tx: EntityManager,
  target: ChargeTarget,
  fields: readonly EnrichmentField[],
  found: Partial<Record<EnrichmentField, string>>,
  cached: CachedProfile | undefined,
  options: { stopWhenShort: boolean },
): Promise<Delivery> {
  const delivery: Delivery = { values: {}, charged: [], fromCache: [], withheld: [], credits: 0, shortOfCredits: false };
  for (const field of orderedFields(fields)) {
    if (cached?.searched.includes(field)) {
      const value = cached.values[field];
      if (value !== undefined) {
        delivery.values[field] = value;
        delivery.fromCache.push(field);
      }
      continue;
    }
    const value = found[field];
    if (value === undefined) continue;
    if (delivery.shortOfCredits && options.stopWhenShort) {
      delivery.withheld.push(field);
      continue;
    }
    let applied: boolean;
    try {
      ({ applied } = await applyCredits(tx, {
        organizationId: target.organizationId,
        delta: -CREDIT_PRICES[field],
        reason: `${target.reason}: ${FIELD_NAMES[field]}`,
        refType: target.refType,
        refId: target.refId,
        idempotencyKey: `${target.keyPrefix}:${field}`,
      }));
    } catch (error) {
      if (!(error instanceof InsufficientCreditsError)) throw error;
      delivery.withheld.push(field);
      delivery.shortOfCredits = true;
      continue;
    }
    delivery.values[field] = value;
    delivery.charged.push(field);
    // A key already used means an earlier commit paid (and counted) this datum.
    if (applied) delivery.credits += CREDIT_PRICES[field];
  }
  return delivery;
}

/** Locks the organization's row for the rest of the transaction: every enrichment commit of one organization runs one at a time. */
export async function lockOrganization(tx: EntityManager, organizationId: string): Promise<number> {
  const row = await kysely(tx).selectFrom('organization').select('creditBalance').where('id', '=', organizationId).forUpdate().executeTakeFirst();
  if (!row) throw new Error(`organization ${organizationId} does not exist`);
  return Number(row.creditBalance);
}
