import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';

/** One row per failed login, so throttling holds across API processes. */
export const LoginFailure = defineEntity({
  name: 'LoginFailure',
  indexes: [{ properties: ['email', 'createdAt'] }, { properties: ['clientIp', 'createdAt'] }],
  properties: {
    id: idProperty(),
    email: p.string().length(254),
    clientIp: p.string().length(64),
    createdAt: createdAtProperty(),
  },
});
export type ILoginFailure = InferEntity<typeof LoginFailure>;
