import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

/** A link that lets one person join an organization as a member; only the token's SHA-256 is kept. */
export const OrganizationInvite = defineEntity({
  name: 'OrganizationInvite',
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    createdBy: () => p.manyToOne(User).deleteRule('set null').nullable(),
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    /** Set by the signup that used it: an invite admits one person. */
    usedAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
  },
});
export type IOrganizationInvite = InferEntity<typeof OrganizationInvite>;
