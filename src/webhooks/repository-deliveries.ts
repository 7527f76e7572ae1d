/** Webhook events and their deliveries (CONTRACT §9.3): recorded once, updated after every attempt, listed as the delivery log. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { DeliveryStatus, WebhookEvent } from '../domain/webhook-events.ts';
import { newId } from '../db/entities/common.ts';
import { kysely } from '../db/kysely.ts';

export interface EventRecord {
  id: string;
  organizationId: string;
  type: WebhookEvent;
  jobId: string;
  createdAt: Date;
  body: string;
}

/** The event of this job and type: the one stored before (a re-run keeps the first body), else this one. */
export async function recordEvent(em: EntityManager, event: EventRecord): Promise<{ id: string }> {
  const db = kysely(em);
  await db
    .insertInto('webhook_event')
    .values({ id: event.id, organization: event.organizationId, type: event.type, jobId: event.jobId, body: event.body, createdAt: event.createdAt })
    .onConflict((oc) => oc.columns(['jobId', 'type']).doNothing())
    .execute();
  return db.selectFrom('webhook_event').select('id').where('jobId', '=', event.jobId).where('type', '=', event.type).executeTakeFirstOrThrow();
}

/**
 * One delivery per enabled endpoint of the organization subscribed to the type (at most one per endpoint and
 * event); answers the ids of the event's deliveries still pending, so a re-run starts what it had not.
 */
export async function addDeliveries(em: EntityManager, event: { id: string; organizationId: string; type: WebhookEvent }): Promise<string[]> {
  const db = kysely(em);
  const endpoints = await db
    .selectFrom('webhook_endpoint')
    .select('id')
    .where('organization', '=', event.organizationId)
    .where('disabledAt', 'is', null)
    .where((eb) => eb.or([eb('events', '@>', sql<string[]>`array['*']::text[]`), eb('events', '@>', sql<string[]>`array[${event.type}]::text[]`)]))
    .execute();
  if (endpoints.length > 0) {
    await db
      .insertInto('webhook_delivery')
      .values(
        endpoints.map((endpoint) => ({
          id: newId(),
          endpoint: endpoint.id,
          event: event.id,
          status: 'pending' as const,
          attempts: 0,
          nextAttemptAt: sql<Date>`now()`,
          createdAt: sql<Date>`now()`,
        })),
      )
      .onConflict((oc) => oc.columns(['endpoint', 'event']).doNothing())
      .execute();
  }
  const pending = await db.selectFrom('webhook_delivery').select('id').where('event', '=', event.id).where('status', '=', 'pending').orderBy('id').execute();
  return pending.map((row) => row.id);
}

export interface DeliveryTarget {
  status: DeliveryStatus;
  url: string;
  secretCiphertext: string;
  organizationId: string;
  endpointId: string;
  endpointDisabled: boolean;
  eventId: string;
  body: string;
}

export async function deliveryTarget(em: EntityManager, deliveryId: string): Promise<DeliveryTarget | null> {
  const target = await kysely(em)
    .selectFrom('webhook_delivery as d')
    .innerJoin('webhook_endpoint as e', 'e.id', 'd.endpoint')
    .innerJoin('webhook_event as ev', 'ev.id', 'd.event')
    .select((eb) => [
      'd.status',
      'e.id as endpointId',
      'e.url',
      'e.secretCiphertext',
      'e.organization as organizationId',
      eb('e.disabledAt', 'is not', null).$castTo<boolean>().as('endpointDisabled'),
      'ev.id as eventId',
      'ev.body',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  return target ?? null;
}

export interface AttemptRecord {
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
  /** Whether an HTTP attempt was made (an attempt refused before sending counts too; a skipped one does not). */
  attempted: boolean;
}

export async function recordAttempt(em: EntityManager, deliveryId: string, a: AttemptRecord): Promise<void> {
  await kysely(em)
    .updateTable('webhook_delivery')
    .set((eb) => ({
      status: a.status,
      attempts: eb('attempts', '+', a.attempted ? 1 : 0),
      lastStatusCode: a.statusCode,
      lastError: a.error,
      nextAttemptAt: a.nextAttemptAt,
    }))
    .where('id', '=', deliveryId)
    .execute();
}

/** A receiver answered 410: nothing more is sent to it. */
export async function disableEndpoint(em: EntityManager, endpointId: string): Promise<void> {
  await kysely(em).updateTable('webhook_endpoint').set({ disabledAt: sql`now()` }).where('id', '=', endpointId).where('disabledAt', 'is', null).execute();
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  type: WebhookEvent;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

/** Deliveries with their event's type, as the delivery log shows them. */
const deliveries = (em: EntityManager) =>
  kysely(em)
    .selectFrom('webhook_delivery as d')
    .innerJoin('webhook_event as ev', 'ev.id', 'd.event')
    .select(['d.id', 'd.event as eventId', 'ev.type', 'd.status', 'd.attempts', 'd.lastStatusCode', 'd.lastError', 'd.nextAttemptAt', 'd.createdAt']);

/** An endpoint's deliveries, newest first. */
export async function pageDeliveries(em: EntityManager, endpointId: string, offset: number, limit: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    deliveries(em).where('d.endpoint', '=', endpointId).orderBy('d.id', 'desc').offset(offset).limit(limit).execute(),
    kysely(em)
      .selectFrom('webhook_delivery')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('endpoint', '=', endpointId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Sets the delivery pending again for a manual retry; null when the endpoint has no such delivery. */
export async function reopenDelivery(em: EntityManager, endpointId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const reopened = await kysely(em)
    .updateTable('webhook_delivery')
    .set({ status: 'pending', nextAttemptAt: sql`now()` })
    .where('id', '=', deliveryId)
    .where('endpoint', '=', endpointId)
    .returning('id')
    .executeTakeFirst();
  if (!reopened) return null;
  return (await deliveries(em).where('d.id', '=', deliveryId).executeTakeFirst()) ?? null;
}
