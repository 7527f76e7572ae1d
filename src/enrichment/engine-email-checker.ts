import { domainOf, isValidEmailSyntax, normalizeEmail } from '../domain/email.ts';
import type { EmailResult } from '../domain/lead.ts';
import type { SmtpProber } from '../smtp/prober.ts';
import type { ChainLink } from './engine-provider-chain.ts';

interface Waiter {
  resolve: (result: EmailResult) => void;
  reject: (error: unknown) => void;
}

interface DomainQueue {
  waiting: Map<string, Waiter[]>;
  running: boolean;
}

/**
 * Decides whether a found address is verified: the provider's own verification, else the SMTP prober
 * must say Valid; a Catch-All or Unknown verdict may still be confirmed by Hunter's verifier when the
 * organization's waterfall includes Hunter. Addresses of one domain asked for while a probe of that
 * domain runs are probed together in the next session (one MX lookup and catch-all test for all).
 * One instance per activity call: verdicts are remembered for its duration only.
 */
export class EmailChecker {
  readonly #prober: Pick<SmtpProber, 'probeDomain'>;
  readonly #verifier: ChainLink | undefined;
  readonly #verdicts = new Map<string, Promise<boolean>>();
  readonly #queues = new Map<string, DomainQueue>();

  constructor(prober: Pick<SmtpProber, 'probeDomain'>, verifier?: ChainLink) {
    this.#prober = prober;
    this.#verifier = verifier?.provider.verifyEmail ? verifier : undefined;
  }

  /** The address normalized when it is syntactically an address, else null. */
  static normalize(email: string): string | null {
    const normalized = normalizeEmail(email);
    return isValidEmailSyntax(normalized) ? normalized : null;
  }

  isVerified(email: string, verifiedByProvider?: boolean): Promise<boolean> {
    if (verifiedByProvider === true) return Promise.resolve(true);
    let verdict = this.#verdicts.get(email);
    if (!verdict) {
      verdict = this.#check(email);
      this.#verdicts.set(email, verdict);
      // A failed check (prober or verifier error) must not stick: a retry asks again.
      verdict.catch(() => this.#verdicts.delete(email));
    }
    return verdict;
  }

  async #check(email: string): Promise<boolean> {
    const result = await this.#probe(email);
    if (result === 'Valid') return true;
    if (result === 'Invalid' || !this.#verifier) return false;
    const second = await this.#verifier.provider.verifyEmail!(email, this.#verifier.apiKey);
    return second === 'Valid';
  }

  #probe(email: string): Promise<EmailResult> {
    const domain = domainOf(email);
    let queue = this.#queues.get(domain);
    if (!queue) {
      queue = { waiting: new Map(), running: false };
      this.#queues.set(domain, queue);
    }
    const waiting = queue.waiting;
    const result = new Promise<EmailResult>((resolve, reject) => {
      waiting.set(email, [...(waiting.get(email) ?? []), { resolve, reject }]);
    });
    if (!queue.running) void this.#drain(domain, queue);
    return result;
  }

  async #drain(domain: string, queue: DomainQueue): Promise<void> {
    queue.running = true;
    // Let the addresses asked for in this turn of the event loop join the first session.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.waiting.size > 0) {
      const batch = queue.waiting;
      queue.waiting = new Map();
      const emails = [...batch.keys()];
      try {
        const { outcomes } = await this.#prober.probeDomain(domain, emails);
        emails.forEach((email, i) => {
          for (const waiter of batch.get(email) ?? []) waiter.resolve(outcomes[i]?.result ?? 'Unknown');
        });
      } catch (error) {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      }
    }
    queue.running = false;
    this.#queues.delete(domain);
  }
}
