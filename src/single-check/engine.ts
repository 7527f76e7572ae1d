/**
 * One address checked in real time (CONTRACT §9.1), run by the worker so it goes through the worker's one
 * SmtpProber and therefore the same connection limits as every job.
 */
import type { Orm } from '../db/orm.ts';
import { type DomainFact, freshDomainFact, saveDomainFact } from '../db/repos/domain-facts.ts';
import { type CheckRecord, NO_SMTP, saveCheck } from './repository.ts';
import { domainOf, normalizeEmail } from '../domain/email.ts';
import type { SmtpProber } from '../smtp/prober.ts';
import type { SingleCheckInput } from './messages.ts';

export interface SingleCheckDeps {
  orm: Orm;
  prober: SmtpProber;
  domainCacheTtlMs: number;
}

/** The answer for `email`, stored as the organization's check (and the domain's facts when it learned them). */
export async function checkSingleAddress(deps: SingleCheckDeps, input: SingleCheckInput): Promise<CheckRecord> {
  const email = normalizeEmail(input.email).toLowerCase();
  const domain = domainOf(email);
  const em = deps.orm.em.fork();
  const fact = await freshDomainFact(em, domain, deps.domainCacheTtlMs);
  const check = (fact && fromDomainFact(email, fact)) ?? (await probe(deps, email, domain, input.timeoutMs));
  await saveCheck(em, input.organizationId, check);
  return check;
}

/** A domain known to accept everything, or no mail at all, decides every address without SMTP. */
function fromDomainFact(email: string, fact: DomainFact): CheckRecord | null {
  const base = { email, domain: fact.domain, mxHost: fact.mxHost, isCatchAll: fact.isCatchAll, ...NO_SMTP, checkedAt: new Date() };
  if (fact.mailVerdict) return { ...base, result: 'Invalid', reason: fact.mailVerdict };
  // No attempt for this address, but the verdict rests on the reply that proved the domain catch-all.
  if (fact.isCatchAll === true) {
    const evidence = { smtpCode: fact.smtpCode, enhancedCode: fact.enhancedCode };
    return { ...base, ...evidence, result: 'Catch-All', reason: 'catch-all: the domain accepts any address (known domain)' };
  }
  return null;
}

async function probe(deps: SingleCheckDeps, email: string, domain: string, timeoutMs: number): Promise<CheckRecord> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const outcome = await deps.prober.probeDomain(domain, [email], { signal });
    const [first] = outcome.outcomes;
    const checkedAt = new Date();
    const result = first?.result ?? 'Unknown';
    const reason = first?.reason ?? 'no outcome';
    const noMail = first?.source === 'precheck' && result === 'Invalid';
    // Only what the probe settled becomes a shared fact: an undetermined catch-all is probed again next time.
    if (noMail || outcome.isCatchAll !== null) {
      await saveDomainFact(deps.orm.em.fork(), {
        domain: outcome.domain,
        mxHost: outcome.mxHost,
        isCatchAll: outcome.isCatchAll,
        mailVerdict: noMail ? reason : null,
        ...(outcome.isCatchAll === true ? { smtpCode: first?.smtpCode ?? null, enhancedCode: first?.enhancedCode ?? null } : { smtpCode: null, enhancedCode: null }),
        checkedAt,
      });
    }
    return {
      email,
      domain: outcome.domain,
      result,
      reason,
      mxHost: first?.mxHost ?? outcome.mxHost,
      isCatchAll: outcome.isCatchAll,
      smtpCode: first?.smtpCode ?? null,
      enhancedCode: first?.enhancedCode ?? null,
      attempts: first?.attempts ?? 0,
      checkedAt,
    };
  } catch (error) {
    if (!signal.aborted) throw error;
    return {
      email,
      domain,
      result: 'Unknown',
      reason: `not final within ${timeoutMs} ms (greylisting or a slow mail host)`,
      mxHost: null,
      isCatchAll: null,
      ...NO_SMTP,
      checkedAt: new Date(),
    };
  }
}
