import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { idProperty } from './common.ts';

/**
 * What the single-address check learned about a domain (CONTRACT §9.1), shared by every organization and
 * process: facts about a domain are public and the same for everyone, so one probe serves all for
 * VERIFY_DOMAIN_CACHE_TTL. `mailVerdict` is set when DNS alone decided (no mail host, null MX).
 */
export const VerifyDomainFact = defineEntity({
  name: 'VerifyDomainFact',
  // The periodic cleanup deletes by age.
  indexes: [{ properties: ['checkedAt'] }],
  properties: {
    id: idProperty(),
    domain: p.string().length(253).unique(),
    mxHost: p.string().length(253).nullable(),
    isCatchAll: p.boolean().nullable(),
    mailVerdict: p.text().nullable(),
    /** The accepting reply that proved the domain catch-all: later addresses decided by the fact show it as their evidence. */
    smtpCode: p.integer().nullable(),
    enhancedCode: p.string().length(16).nullable(),
    checkedAt: p.datetime(),
  },
});
export type IVerifyDomainFact = InferEntity<typeof VerifyDomainFact>;
