/** What a job event says (CONTRACT §9.3): the job as its GET route shows it, at the moment of the event. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { refId } from '../db/entities/common.ts';
import { EnrichmentJob, ScrapeJob, VerificationJob } from '../db/entities/index.ts';
import type { WebhookEvent } from '../domain/webhook-events.ts';
import { toBulkJobDto } from '../enrichment/views.ts';
import { toScrapeJobDto } from '../scrape/views.ts';
import { verificationJobDtos } from '../verification/service.ts';

export interface JobSnapshot {
  organizationId: string;
  /** The job's stage or status now. */
  state: string;
  job: object;
}

/** The job the event is about, or null when it no longer exists. */
export async function snapshotJob(em: EntityManager, type: WebhookEvent, jobId: string): Promise<JobSnapshot | null> {
  const kind = type.slice(0, type.indexOf('.'));
  if (kind === 'verification') {
    const job = await em.findOne(VerificationJob, { id: jobId });
    if (!job) return null;
    const [dto] = await verificationJobDtos(em, [job]);
    return { organizationId: refId(job.organization), state: job.verificationStage, job: dto! };
  }
  if (kind === 'scrape') {
    // Without `items`, as the live progress stream shows it: an event stays small whatever the job's size.
    const job = await em.findOne(ScrapeJob, { id: jobId });
    return job && { organizationId: refId(job.organization), state: job.status, job: toScrapeJobDto(job) };
  }
  const job = await em.findOne(EnrichmentJob, { id: jobId });
  return job && { organizationId: refId(job.organization), state: job.status, job: toBulkJobDto(job) };
}

/** `completed` and `failed` are final: the event is only recorded when the job is in that state. */
export const stateOf = (type: WebhookEvent) => type.slice(type.indexOf('.') + 1);
