import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { Scope } from '../domain/scopes.ts';
import type { UserRole } from '../domain/roles.ts';
import type { IntegrationAccess } from '../integration-access.ts';
import type { EgressEnvironments } from '../smtp/environment.ts';
import type { EgressReport } from '../smtp/prober.ts';

export type { Scope } from '../domain/scopes.ts';

export interface Principal {
  kind: 'session' | 'api_key';
  organizationId: string;
  userId: string | null;
  /** The signed-in user's role; null for an API key (which acts for the organization that an owner made it for). */
  role: UserRole | null;
  apiKeyId: string | null;
  scopes: readonly Scope[];
}

/** What the HTTP layer needs from the outside world; tests pass the same shape. */
export interface AppDeps extends IntegrationAccess {
  config: Config;
  orm: Orm;
  temporal: Client;
  /** The Temporal worker's Prometheus exporter in this process (ROLE=all), appended to `GET /metrics`. */
  workerMetricsUrl?: string;
  /** The resolver and outbound-SMTP checks of the worker in this process (ROLE=all), for `/readyz`. */
  smtpEnvironment?: EgressEnvironments;
  /** Each egress's blocklist, identity and quarantines as the worker in this process sees them (CONTRACT §13). */
  smtpEgress?: { egressReport(): EgressReport[] };
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: AppDeps;
    /** Forked on first use, through `requestEm(c)`: the integration routes never need one. */
    em: EntityManager | undefined;
    principal: Principal;
  };
}
