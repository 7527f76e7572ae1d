/**
 * The email finder (CONTRACT §14): a person's address at a domain from their names, asked of the domain's own mail
 * host at the smallest cost to it — one session, candidates in order, none after the first Valid — or, where the
 * host accepts every address, of the Microsoft directory, else guessed and scored.
 */
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { dominantTemplate, scoreCatchAll } from '../domain/catch-all-score.ts';
import { localPartOf, toAsciiDomain } from '../domain/email.ts';
import type { TriedCandidate } from '../domain/find-answer.ts';
import { type Candidate, type FindStep, findCandidates, type TemplateCounts, templateOrder } from '../domain/finder.ts';
import type { DirectoryAnswer, MicrosoftDirectory } from '../directory/microsoft.ts';
import type { ProbeOutcome, SmtpProber } from '../smtp/prober.ts';
import { NOT_ASKED } from '../smtp/verdicts.ts';
import { freshDomainFact, saveDomainFact } from '../db/repos/domain-facts.ts';
import { addTemplateCounts } from '../db/repos/domain-templates.ts';
import { domainTemplateCounts, globalTemplateCounts } from './repository.ts';

export interface FinderDeps {
  orm: Orm;
  prober: Pick<SmtpProber, 'probeDomain' | 'mailboxHostOf'>;
  /** The Microsoft directory (MS_DIRECTORY_CHECK=on), else null. */
  directory: Pick<MicrosoftDirectory, 'lookup' | 'tenant'> | null;
  config: Pick<Config, 'FINDER_MAX_CANDIDATES' | 'VERIFY_DOMAIN_CACHE_TTL'>;
}

export interface FindRequest {
  firstName: string;
  lastName: string;
  domain: string;
  /** Whose SMTP work this is (its turn among owners) and the seed of its catch-all address: a retry asks the same. */
  seed: string;
  /** The candidates still deferred, for a later pass; absent: the first pass builds them from the names. */
  retry?: Candidate[];
  /** Attempts per deferred address within this pass; absent: the prober's own (SMTP_GREYLIST_DELAY_MS apart). */
  attempts?: number;
  signal?: AbortSignal;
}

/** The global order is a sum over every domain's counts: read at most this often per process. */
const GLOBAL_ORDER_TTL_MS = 60_000;
let globalOrder: { at: number; counts: Promise<TemplateCounts> } | null = null;

function globalCounts(orm: Orm): Promise<TemplateCounts> {
  if (!globalOrder || Date.now() - globalOrder.at > GLOBAL_ORDER_TTL_MS) {
    const counts = globalTemplateCounts(orm.em.fork());
    globalOrder = { at: Date.now(), counts };
    counts.catch(() => (globalOrder = null));
  }
  return globalOrder.counts;
}

/** One pass of a find. Learns nothing and charges nothing: `learnFoundTemplate` and the caller's settling do. */
export async function findEmail(deps: FinderDeps, request: FindRequest): Promise<FindStep> {
  const domain = toAsciiDomain(request.domain.trim().toLowerCase());
  const em = deps.orm.em.fork();
  const [counts, global, fact] = await Promise.all([
    domainTemplateCounts(em, domain),
    globalCounts(deps.orm),
    freshDomainFact(em, domain, deps.config.VERIFY_DOMAIN_CACHE_TTL),
  ]);
  const candidates =
    request.retry ?? findCandidates(request, domain, templateOrder(counts, global), deps.config.FINDER_MAX_CANDIDATES);
  if (candidates.length === 0 || fact?.mailVerdict) return { kind: 'done', found: null, tried: [] };
  if (fact?.isCatchAll === true) return acceptsAll(deps, request, domain, fact.mxHost, candidates, counts);

  const probed = await deps.prober.probeDomain(
    domain,
    candidates.map((c) => c.email),
    {
      inTurn: true,
      knownNotCatchAll: fact?.isCatchAll === false,
      owner: `find:${request.seed}`,
      catchAllSeed: request.seed,
      ...(request.attempts === undefined ? {} : { attempts: request.attempts }),
      ...(request.signal ? { signal: request.signal } : {}),
    },
  );
  await rememberDomain(deps, probed, fact?.isCatchAll ?? null);
  if (probed.isCatchAll === true) return acceptsAll(deps, request, domain, probed.mxHost, candidates, counts);

  const tried = probed.outcomes.flatMap((o, i): TriedCandidate[] =>
    o.attempts > 0 && o.reason !== NOT_ASKED ? [rcptTried(candidates[i]!, o)] : [],
  );
  const valid = probed.outcomes.findIndex((o) => o.result === 'Valid');
  if (valid >= 0) {
    const { email, template } = candidates[valid]!;
    return { kind: 'done', found: { email, template, result: 'Valid', catchAllScore: null }, tried };
  }
  const retry = candidates.filter((_, i) => probed.outcomes[i]!.deferral !== undefined);
  return retry.length > 0 ? { kind: 'deferred', tried, retry } : { kind: 'done', found: null, tried };
}

const rcptTried = (candidate: Candidate, o: ProbeOutcome): TriedCandidate => ({
  email: candidate.email,
  template: candidate.template,
  via: 'rcpt',
  result: o.result,
  reply: o.reason,
});

/** What the pass settled about the domain becomes the shared fact the next find starts from (as a single check's does). */
async function rememberDomain(deps: FinderDeps, probed: Awaited<ReturnType<SmtpProber['probeDomain']>>, known: boolean | null) {
  const noMail = probed.outcomes.length > 0 && probed.outcomes.every((o) => o.source === 'precheck' && o.result === 'Invalid');
  if (!noMail && (probed.isCatchAll === null || probed.isCatchAll === known)) return;
  const evidence = probed.isCatchAll === true ? probed.outcomes.find((o) => o.smtpCode !== null) : undefined;
  await saveDomainFact(deps.orm.em.fork(), {
    domain: probed.domain,
    mxHost: probed.mxHost,
    isCatchAll: probed.isCatchAll,
    mailVerdict: noMail ? (probed.outcomes[0]?.reason ?? null) : null,
    smtpCode: evidence?.smtpCode ?? null,
    enhancedCode: evidence?.enhancedCode ?? null,
    checkedAt: new Date(),
  });
}

/**
 * A domain that accepts every address: no mailbox is asked by RCPT. A Microsoft-hosted one is asked of the
 * directory per candidate when that is on and the tenant answers honestly; otherwise the best candidate (the first
 * in order) comes back `Catch-All` with its score.
 */
async function acceptsAll(
  deps: FinderDeps,
  request: FindRequest,
  domain: string,
  mxHost: string | null,
  candidates: Candidate[],
  counts: TemplateCounts,
): Promise<FindStep> {
  const mailbox = mxHost ? await deps.prober.mailboxHostOf(domain, mxHost) : null;
  const tried: TriedCandidate[] = [];
  let tenant: 'honest' | 'accepts_all' | 'unknown' = 'unknown';
  if (deps.directory && mailbox?.provider === 'microsoft') {
    const options = request.signal ? { signal: request.signal } : {};
    tenant = await deps.directory.tenant(domain, options);
    for (const candidate of tenant === 'honest' ? candidates : []) {
      const answer = await deps.directory.lookup(candidate.email, options);
      tried.push({ email: candidate.email, template: candidate.template, via: 'directory', ...directoryVerdict(answer) });
      if (answer.kind === 'exists') {
        return { kind: 'done', found: { ...candidate, result: 'Valid', catchAllScore: null }, tried };
      }
    }
  }
  const best = candidates[0]!;
  const { score } = scoreCatchAll({
    localPart: localPartOf(best.email),
    names: { firstName: request.firstName, lastName: request.lastName },
    domainTemplate: dominantTemplate(counts),
    role: false,
    providerAcceptsAll: mailbox?.provider === 'yahoo' || tenant === 'accepts_all',
    directoryAbsent: tried.some((t) => t.email === best.email && t.result === 'Invalid'),
    foundByProvider: false,
    prior: null,
  });
  return { kind: 'done', found: { ...best, result: 'Catch-All', catchAllScore: score }, tried };
}

function directoryVerdict(answer: DirectoryAnswer): Pick<TriedCandidate, 'result' | 'reply'> {
  if (answer.kind === 'exists') return { result: 'Valid', reply: `IfExistsResult ${answer.ifExistsResult}` };
  if (answer.kind === 'absent') return { result: 'Invalid', reply: 'IfExistsResult 1' };
  return { result: 'Unknown', reply: answer.reason };
}

/** A `Valid` find teaches its domain its template (counts only, CONTRACT §12), as a verification job's do. */
export async function learnFoundTemplate(em: Parameters<typeof addTemplateCounts>[0], domain: string, step: FindStep) {
  if (step.kind === 'done' && step.found?.result === 'Valid') {
    await addTemplateCounts(em, [{ domain: toAsciiDomain(domain.trim().toLowerCase()), template: step.found.template, n: 1 }]);
  }
}
