import type { Orm } from '../db/orm.ts';
import {
  addJobWarnings,
  type SmtpOutcomeRow,
  firstUnprobedPages,
  unfinishedDomains,
  unprobedAddresses,
  updateDomains,
  type DomainVerdict,
  type WorkDomain,
  writeSmtpOutcomes,
} from './repository-work.ts';
import type { VerificationMethod } from '../domain/verification.ts';
import { providerOfHost } from '../domain/mx-provider.ts';
import { environmentWarnings } from '../smtp/environment.ts';
import type { ProbeOutcome, SmtpProber } from '../smtp/prober.ts';
import type { BatchRun } from '../jobs/batch-run.ts';

/** Addresses of one domain read (and handed to one probeDomain call) at a time. */
const PAGE_SIZE = 1000;
/** A write happens once this many outcomes are buffered (fewer near the slice's end: OutcomeWriter), or after FLUSH_DELAY_MS. */
const FLUSH_ROWS = 250;
const FLUSH_DELAY_MS = 250;
/** The smallest batch near the slice's end (see OutcomeWriter). */
const LAST_FLUSH_ROWS = 25;

/**
 * Buffers SMTP-stage outcomes and domain verdicts and writes them in batches, one statement of each
 * per flush, one flush at a time. A domain's verdict is written after its outcomes, so a domain
 * marked done always has every result stored.
 *
 * The write after the slice's last answer is what the stage's end waits for: the batches shrink with what is left
 * of the slice (half of it, down to LAST_FLUSH_ROWS), so that write is a small one. The sessions of a slice end
 * together, and a full batch of FLUSH_ROWS there held the end back 15–35 ms behind the other slices' last writes.
 */
class OutcomeWriter {
  readonly #orm: Orm;
  readonly #jobId: string;
  /** Outcomes still to come in this slice (an estimate from above after a retry). */
  #left: number;
  #rows: SmtpOutcomeRow[] = [];
  #domains: DomainVerdict[] = [];
  #chain: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #error: unknown = null;
  written = 0;

  constructor(orm: Orm, jobId: string, expected: number) {
    this.#orm = orm;
    this.#jobId = jobId;
    this.#left = expected;
  }

  add(row: SmtpOutcomeRow): void {
    this.#rows.push(row);
    this.#left -= 1;
    if (this.#rows.length >= Math.min(FLUSH_ROWS, Math.max(LAST_FLUSH_ROWS, Math.ceil(this.#left / 2))))
      void this.flush().catch(() => undefined);
    else this.#schedule();
  }

  domain(verdict: DomainVerdict): void {
    this.#domains.push(verdict);
    this.#schedule();
  }

  /** Writes everything buffered so far; rejects if any write of this writer failed. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const rows = this.#rows.splice(0);
    const domains = this.#domains.splice(0);
    this.#chain = this.#chain.then(async () => {
      if (this.#error) return;
      try {
        const em = this.#orm.em.fork();
        this.written += await writeSmtpOutcomes(em, this.#jobId, rows);
        await updateDomains(em, this.#jobId, domains);
      } catch (error) {
        this.#error = error;
      }
    });
    return this.#chain.then(() => {
      if (this.#error) throw this.#error;
    });
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => void this.flush().catch(() => undefined), FLUSH_DELAY_MS);
  }
}

export const fromOutcome = (id: string, o: ProbeOutcome): SmtpOutcomeRow => ({
  id,
  result: o.result,
  source: o.source,
  reason: o.reason,
  mxHost: o.mxHost,
  mxProvider: o.mxProvider,
  mailboxProvider: o.mailboxProvider,
  mailboxProviderSignals: o.mailboxProviderSignals,
  smtpCode: o.smtpCode,
  enhancedCode: o.enhancedCode,
  attempts: o.attempts,
  transcript: o.transcript,
  apiPending: false,
  ...(o.deferral ? { deferral: o.deferral } : {}),
});

/** What the verification engine works with, built once per worker: the prober's limits hold across all its jobs. */
export interface VerificationEngineDeps {
  orm: Orm;
  prober: SmtpProber;
}

export interface SliceInput {
  jobId: string;
  method: VerificationMethod;
  fromSeq: number;
  toSeq: number;
}

/**
 * The SMTP stage for the domains numbered fromSeq..toSeq, all at once (the prober's process-wide
 * limits decide how many sessions really run). Addresses come from the database page by page;
 * only those without a stored outcome are probed, so a retried slice resumes where the last stopped.
 * For api_only only the free pre-checks run: failures are Invalid, the rest are marked for the provider.
 */
export async function probeSlice(deps: VerificationEngineDeps, input: SliceInput, run: BatchRun): Promise<{ domains: number; written: number }> {
  const { orm, prober } = deps;
  const { signal } = run;
  const em = orm.em.fork();
  const domains = await unfinishedDomains(em, input.jobId, input.fromSeq, input.toSeq);
  // The first page of every domain in one query: the sessions start without a query per domain.
  const firstPages = await firstUnprobedPages(
    em,
    input.jobId,
    domains.map((d) => d.domain),
    PAGE_SIZE,
  );
  // What is left of a domain: its first page when that is not full, else (at most) every address it has.
  const left = (d: WorkDomain) => {
    const page = firstPages.get(d.domain)?.length ?? 0;
    return page < PAGE_SIZE ? page : d.emailCount;
  };
  const writer = new OutcomeWriter(orm, input.jobId, domains.reduce((n, d) => n + left(d), 0));
  // One domain failing stops its siblings, so a retry never races a previous attempt's leftovers.
  const abort = new AbortController();
  const stop = () => abort.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  try {
    const work = (domain: WorkDomain) => {
      const pages = addressPages(orm, input.jobId, domain.domain, firstPages.get(domain.domain) ?? []);
      const checked =
        input.method === 'api_only'
          ? precheckDomain(prober, domain, pages, writer, abort.signal)
          : probeDomain(prober, input.jobId, domain, pages, writer, abort.signal);
      return checked.catch((error: unknown) => {
        abort.abort(error);
        throw error;
      });
    };
    const settled = await Promise.allSettled(domains.map(work));
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    await writer.flush();
    if (failure) throw failure.reason;
    const warnings = [...environmentWarnings(prober.environment.last), ...prober.health.warnings()];
    if (warnings.length > 0) await addJobWarnings(em, input.jobId, warnings);
    return { domains: domains.length, written: writer.written };
  } finally {
    signal.removeEventListener('abort', stop);
    // Whatever was answered before a failure or cancellation is kept for the retry.
    await writer.flush().catch(() => undefined);
  }
}

type Page = Array<{ id: string; email: string }>;

/** A domain's unprobed addresses page by page (keyset on id), starting with a prefetched page. */
async function* addressPages(orm: Orm, jobId: string, domain: string, first: Page): AsyncGenerator<Page> {
  let page = first;
  while (page.length > 0) {
    yield page;
    if (page.length < PAGE_SIZE) return;
    page = await unprobedAddresses(orm.em.fork(), jobId, domain, page[page.length - 1]!.id, PAGE_SIZE);
  }
}

async function probeDomain(
  prober: SmtpProber,
  jobId: string,
  domain: WorkDomain,
  pages: AsyncIterable<Page>,
  writer: OutcomeWriter,
  signal: AbortSignal,
) {
  let isCatchAll = domain.isCatchAll;
  let mxHost: string | null = domain.mxHost;
  let catchAllReason = 'catch-all: the domain accepted a random address';
  let mailbox: Pick<ProbeOutcome, 'mailboxProvider' | 'mailboxProviderSignals'> | null = null;
  for await (const page of pages) {
    if (isCatchAll === true) {
      // Known from an earlier page (or attempt): nothing more to ask the server. Who hosts the mailboxes is what
      // that page found, or (after a retry) the prober's remembered lookup for the host that proved it.
      if (!mailbox && mxHost) {
        const host = await prober.mailboxHostOf(domain.domain, mxHost);
        mailbox = { mailboxProvider: host.provider, mailboxProviderSignals: host.signals };
      }
      for (const { id } of page) {
        writer.add({
          id,
          result: 'Catch-All',
          source: 'smtp',
          reason: catchAllReason,
          mxHost,
          mxProvider: mxHost ? providerOfHost(mxHost) : null,
          mailboxProvider: mailbox?.mailboxProvider ?? null,
          mailboxProviderSignals: mailbox?.mailboxProviderSignals ?? [],
          apiPending: false,
        });
      }
    } else {
      const idByEmail = new Map(page.map((a) => [a.email, a.id]));
      const emit = (o: ProbeOutcome) => {
        const id = idByEmail.get(o.email);
        if (id === undefined) return;
        idByEmail.delete(o.email);
        writer.add(fromOutcome(id, o));
      };
      const outcome = await prober.probeDomain(
        domain.domain,
        page.map((a) => a.email),
        { signal, onResult: emit, owner: jobId, catchAllSeed: jobId },
      );
      outcome.outcomes.forEach(emit);
      isCatchAll = outcome.isCatchAll ?? isCatchAll;
      mxHost = outcome.mxHost ?? mxHost;
      const catchAllOutcome = outcome.outcomes.find((o) => o.result === 'Catch-All');
      if (catchAllOutcome) {
        catchAllReason = catchAllOutcome.reason;
        mailbox = catchAllOutcome;
      }
    }
    // More pages may follow: they (and a retry) must know the verdict.
    if (page.length === PAGE_SIZE) writer.domain({ domain: domain.domain, isCatchAll, mxHost, done: false });
  }
  writer.domain({ domain: domain.domain, isCatchAll, mxHost, done: true });
}

async function precheckDomain(
  prober: SmtpProber,
  domain: WorkDomain,
  pages: AsyncIterable<Page>,
  writer: OutcomeWriter,
  signal: AbortSignal,
) {
  let mxHost: string | null = null;
  for await (const page of pages) {
    signal.throwIfAborted();
    const idByEmail = new Map(page.map((a) => [a.email, a.id]));
    const checked = await prober.precheckDomain(
      domain.domain,
      page.map((a) => a.email),
    );
    mxHost = checked.mxHost ?? mxHost;
    for (const o of checked.failed) {
      const id = idByEmail.get(o.email);
      if (id !== undefined) writer.add(fromOutcome(id, o));
    }
    for (const email of checked.passed) {
      const id = idByEmail.get(email);
      if (id !== undefined) {
        writer.add({
          id,
          result: null,
          source: 'precheck',
          reason: null,
          mxHost: checked.mxHost,
          mxProvider: null, // no SMTP was attempted
          mailboxProvider: null,
          mailboxProviderSignals: [],
          apiPending: true,
        });
      }
    }
  }
  writer.domain({ domain: domain.domain, isCatchAll: null, mxHost, done: true });
}
