import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { User } from './user.ts';

export const Session = defineEntity({
  name: 'Session',
  properties: {
    id: idProperty(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    /** SHA-256 of the cookie token: a database leak yields no usable session. */
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    createdAt: createdAtProperty(),
  },
});
export type ISession = InferEntity<typeof Session>;
