import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One open SMTP session's claim on its (egress, MX host) budget. It expires unless its holder renews it, so
 * the sessions of a worker killed outright stop counting within the lease time.
 */
export const SmtpLease = defineEntity({
  name: 'SmtpLease',
  indexes: [{ properties: ['egress', 'host', 'expiresAt'] }],
  properties: {
    id: p.uuid().primary(),
    egress: p.string().length(300),
    host: p.string().length(253),
    holder: p.string().length(100),
    expiresAt: p.datetime(),
  },
});
export type ISmtpLease = InferEntity<typeof SmtpLease>;
