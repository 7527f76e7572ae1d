import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * What a domain's Microsoft tenant answered for an address that cannot exist (the canary, CONTRACT §12), shared
 * by every worker process and reused for a day. `askingUntil` is a process's claim while it asks, so the others
 * wait for its answer instead of asking too.
 */
export const DirectoryTenant = defineEntity({
  name: 'DirectoryTenant',
  properties: {
    domain: p.string().length(253).primary(),
    /** `honest` or `accepts_all`; null until a canary got a verdict. */
    verdict: p.string().length(12).nullable(),
    checkedAt: p.datetime().nullable(),
    askingUntil: p.datetime().nullable(),
  },
});
export type IDirectoryTenant = InferEntity<typeof DirectoryTenant>;
