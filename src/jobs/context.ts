import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';

/**
 * What a job kind's service works with: the caller's unit of work, the organization whose data it is, and the
 * Temporal client that starts and signals the job's workflow. The HTTP layer builds one per request
 * (`jobContext(c)`); a service never sees a request.
 */
export interface JobContext {
  em: EntityManager;
  organizationId: string;
  temporal: Client;
  config: Config;
}
