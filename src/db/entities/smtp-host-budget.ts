import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * What every worker process shares about one MX host seen from one egress (CONTRACT §11): the sessions it
 * may have now (halved by throttling, won back slowly), when the next may open, and what it taught about
 * rejected RCPTs. Only changed by the statements in `smtp/repository-budget.ts`.
 */
export const SmtpHostBudget = defineEntity({
  name: 'SmtpHostBudget',
  properties: {
    egress: p.string().length(300).primary(),
    host: p.string().length(253).primary(),
    allowed: p.integer(),
    nextOpenAt: p.datetime(),
    pausedUntil: p.datetime(),
    patience: p.string().length(10),
    updatedAt: p.datetime(),
  },
});
export type ISmtpHostBudget = InferEntity<typeof SmtpHostBudget>;
