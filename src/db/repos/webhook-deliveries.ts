/** Webhook events and their deliveries (CONTRACT §9.3): recorded once, updated after every attempt, listed as the delivery log. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryStatus, WebhookEvent } from '../../domain/webhook-events.ts';
import { newId } from '../entities/common.ts';

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
  const conn = em.getConnection();
  await conn.execute(
    `insert into webhook_event (id, organization_id, type, job_id, body, created_at) values (?, ?, ?, ?, ?, ?)
     on conflict (job_id, type) do nothing`,
    [event.id, event.organizationId, event.type, event.jobId, event.body, event.createdAt],
  );
  const [row] = await conn.execute(`select id from webhook_event where job_id = ? and type = ?`, [event.jobId, event.type]);
  return { id: row!.id };
}

/**
 * One delivery per enabled endpoint of the organization subscribed to the type (at most one per endpoint and
 * event); answers the ids of the event's deliveries still pending, so a re-run starts what it had not.
 */
export async function addDeliveries(em: EntityManager, event: { id: string; organizationId: string; type: WebhookEvent }): Promise<string[]> {
  const conn = em.getConnection();
  const endpoints = await conn.execute(
    `select id from webhook_endpoint
      where organization_id = ? and disabled_at is null and (events @> array['*']::text[] or events @> array[?]::text[])`,
    [event.organizationId, event.type],
  );
  for (const endpoint of endpoints) {
    await conn.execute(
      `insert into webhook_delivery (id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at)
       values (?, ?, ?, 'pending', 0, now(), now()) on conflict (endpoint_id, event_id) do nothing`,
      [newId(), endpoint.id, event.id],
    );
  }
  const pending = await conn.execute(`select id from webhook_delivery where event_id = ? and status = 'pending' order by id`, [event.id]);
  return pending.map((row) => row.id as string);
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
  const [row] = await em.getConnection().execute(
    `select d.status, e.id as endpoint_id, e.url, e.secret_ciphertext, e.organization_id, e.disabled_at is not null as disabled, ev.id as event_id, ev.body
       from webhook_delivery d join webhook_endpoint e on e.id = d.endpoint_id join webhook_event ev on ev.id = d.event_id
      where d.id = ?`,
    [deliveryId],
  );
  if (!row) return null;
  return {
    status: row.status,
    url: row.url,
    secretCiphertext: row.secret_ciphertext,
    organizationId: row.organization_id,
    endpointId: row.endpoint_id,
    endpointDisabled: row.disabled,
    eventId: row.event_id,
    body: row.body,
  };
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
  await em.getConnection().execute(
    `update webhook_delivery set status = ?, attempts = attempts + ?, last_status_code = ?,
            last_error = ?, next_attempt_at = ? where id = ?`,
    [a.status, a.attempted ? 1 : 0, a.statusCode, a.error, a.nextAttemptAt, deliveryId],
  );
}

/** A receiver answered 410: nothing more is sent to it. */
export async function disableEndpoint(em: EntityManager, endpointId: string): Promise<void> {
  await em.getConnection().execute(`update webhook_endpoint set disabled_at = now() where id = ? and disabled_at is null`, [endpointId]);
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

const DELIVERY_COLUMNS = `d.id, d.event_id, ev.type, d.status, d.attempts, d.last_status_code, d.last_error, d.next_attempt_at, d.created_at`;

const toRow = (r: Record<string, unknown>): DeliveryRow => ({
  id: r.id as string,
  eventId: r.event_id as string,
  type: r.type as WebhookEvent,
  status: r.status as DeliveryStatus,
  attempts: r.attempts as number,
  lastStatusCode: (r.last_status_code as number | null) ?? null,
  lastError: (r.last_error as string | null) ?? null,
  nextAttemptAt: r.next_attempt_at ? new Date(r.next_attempt_at as string) : null,
  createdAt: new Date(r.created_at as string),
});

/** An endpoint's deliveries, newest first. */
export async function pageDeliveries(em: EntityManager, endpointId: string, offset: number, limit: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const conn = em.getConnection();
  const [rows, [count]] = await Promise.all([
    conn.execute(
      `select ${DELIVERY_COLUMNS} from webhook_delivery d join webhook_event ev on ev.id = d.event_id
        where d.endpoint_id = ? order by d.id desc offset ? limit ?`,
      [endpointId, offset, limit],
    ),
    conn.execute(`select count(*)::int as total from webhook_delivery where endpoint_id = ?`, [endpointId]),
  ]);
  return { rows: rows.map(toRow), total: count!.total };
}

/** Sets the delivery pending again for a manual retry; null when the endpoint has no such delivery. */
export async function reopenDelivery(em: EntityManager, endpointId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const [row] = await em.getConnection().execute(
    `with reopened as (
       update webhook_delivery set status = 'pending', next_attempt_at = now() where id = ? and endpoint_id = ? returning *
     )
     select ${DELIVERY_COLUMNS} from reopened d join webhook_event ev on ev.id = d.event_id`,
    [deliveryId, endpointId],
  );
  return row ? toRow(row) : null;
}
