import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { USER_ROLES } from '../../domain/roles.ts';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    email: p.string().length(254).unique(),
    name: p.string().length(200).nullable(),
    passwordHash: p.string().length(300).hidden(),
    /** The user who signed the organization up is its `owner`; invited users are `member`s. */
    role: p.enum(USER_ROLES),
    createdAt: createdAtProperty(),
  },
});
export type IUser = InferEntity<typeof User>;
