import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { Organization } from './organization.ts';

export const List = defineEntity({
  name: 'List',
  tableName: 'lead_list',
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    description: p.text().nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export type IList = InferEntity<typeof List>;
