import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMAIL_TEMPLATES } from '../../domain/email-templates.ts';

/**
 * How often each address template was seen `Valid` at a domain, learned from every organization's results
 * (CONTRACT §12): only counts per template are kept, never an address or a name.
 */
export const DomainTemplateShare = defineEntity({
  name: 'DomainTemplateShare',
  properties: {
    domain: p.string().length(253).primary(),
    template: p.enum(EMAIL_TEMPLATES).primary(),
    validCount: p.integer(),
    updatedAt: p.datetime(),
  },
});
export type IDomainTemplateShare = InferEntity<typeof DomainTemplateShare>;
