import type { EntityManager } from '@mikro-orm/postgresql';
import { applyCredits, InsufficientCreditsError } from '../accounts/credits.ts';
import { CREDIT_PRICES } from '../domain/enrichment.ts';
import type { FindAnswer } from '../domain/find-answer.ts';
import type { FindStep } from '../domain/finder.ts';
import { learnFoundTemplate } from './engine.ts';
import { lockFind, recordAnswer } from './repository.ts';

/**
 * Records a find's answer, charging the work-email price when it is `Valid` (CONTRACT §14) and teaching the domain
 * its template, in one transaction keyed by the find: run again (an activity retry), it returns the recorded
 * answer and charges and learns nothing. A `Valid` address the balance cannot pay for is not given.
 */
export async function settleFind(em: EntityManager, find: { findId: string; organizationId: string; domain: string }, step: FindStep): Promise<FindAnswer> {
  return em.transactional(async (tx) => {
    const recorded = await lockFind(tx, find.findId);
    if (recorded) return recorded;
    const found = step.kind === 'done' ? step.found : null;
    let answer: FindAnswer = {
      email: found?.email ?? null,
      result: found?.result ?? null,
      catchAllScore: found?.catchAllScore ?? null,
      template: found?.template ?? null,
      candidatesTried: step.tried,
      creditsUsed: 0,
    };
    if (found?.result === 'Valid') {
      try {
        await applyCredits(tx, {
          organizationId: find.organizationId,
          delta: -CREDIT_PRICES.workEmail,
          reason: 'Email finder: work email',
          refType: 'email_find',
          refId: find.findId,
          idempotencyKey: `find:${find.findId}:workEmail`,
        });
        answer = { ...answer, creditsUsed: CREDIT_PRICES.workEmail };
      } catch (error) {
        if (!(error instanceof InsufficientCreditsError)) throw error;
        answer = { ...answer, email: null, result: null, template: null };
      }
      await learnFoundTemplate(tx, find.domain, step);
    }
    await recordAnswer(tx, find.findId, answer);
    return answer;
  });
}
