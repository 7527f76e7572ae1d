import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';

export type Scope =
  | 'lists:read'
  | 'lists:write'
  | 'leads:read'
  | 'leads:write'
  | 'verification:read'
  | 'verification:write'
  | 'enrichment:write'
  | 'webhooks:write';

export interface Principal {
  kind: 'session' | 'api_key';
  organizationId: string;
  userId: string | null;
  apiKeyId: string | null;
  scopes: readonly Scope[];
}

/** What the HTTP layer needs from the outside world; tests pass the same shape. */
export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: Client;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: AppDeps;
    em: EntityManager;
    principal: Principal;
  };
}
