import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';

export const Organization = defineEntity({
  name: 'Organization',
  properties: {
    id: idProperty(),
    name: p.string().length(200),
    /** Cached sum of the organization's ledger rows; only ever moved together with a ledger insert. */
    creditBalance: p.integer().default(0),
    createdAt: createdAtProperty(),
  },
});
export type IOrganization = InferEntity<typeof Organization>;
