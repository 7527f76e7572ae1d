import type { MailboxHost } from '../domain/catch-all.ts';
import type { DomainOutcome, EmailResult, ProbeOutcome } from './types.ts';
import { type Entry, REASONS, outcome, withMailbox } from './verdicts.ts';

/**
 * Who hosts a domain's mailboxes, looked up (for a gateway) while its session runs; an outcome final before the
 * answer waits for it, which the lookup, shorter than a session's first round trips, rarely makes it do.
 */
export class MailboxWait {
  #host: MailboxHost | null = null;
  #abandoned = false;
  readonly #held: ((host: MailboxHost) => void)[] = [];

  constructor(lookup: Promise<MailboxHost>) {
    void lookup.then((host) => this.release(host));
  }

  release(host: MailboxHost): void {
    this.#host = host;
    if (!this.#abandoned) for (const emit of this.#held.splice(0)) emit(host);
  }

  /** An aborted probe hands nothing more to its caller. */
  abandon(): void {
    this.#abandoned = true;
  }

  /** `emit` now if the host is known, else once it is. */
  whenKnown(emit: (host: MailboxHost) => void): void {
    if (this.#host) emit(this.#host);
    else this.#held.push(emit);
  }
}

/**
 * The outcomes of one `probeDomain` call: one per input address, in input order, each handed to `onResult` as soon
 * as it is final and never twice. Addresses of invalid syntax are settled at once.
 */
export class DomainOutcomes {
  readonly #domain: string;
  readonly #emails: readonly string[];
  readonly #entries: readonly Entry[];
  readonly #outcomes: (ProbeOutcome | undefined)[];
  readonly #onResult: ((outcome: ProbeOutcome) => void) | undefined;
  /** Indices of the entries behind each distinct address (addresses compare case-insensitively). */
  readonly #indicesByAddress = new Map<string, number[]>();
  /** Indices given their outcome (settled now, or held for the mailbox host), so none is settled twice. */
  readonly #claimed = new Set<number>();

  constructor(domain: string, emails: readonly string[], entries: readonly Entry[], onResult?: (outcome: ProbeOutcome) => void) {
    this.#domain = domain;
    this.#emails = emails;
    this.#entries = entries;
    this.#outcomes = entries.map(() => undefined);
    this.#onResult = onResult;
    const addressByKey = new Map<string, string>();
    entries.forEach((entry, index) => {
      if (entry.address === null)
        return this.#settle(index, outcome(entry, 'Invalid', 'precheck', REASONS.syntax, null));
      const key = entry.address.toLowerCase();
      const address = addressByKey.get(key) ?? entry.address;
      addressByKey.set(key, address);
      this.#indicesByAddress.set(address, [...(this.#indicesByAddress.get(address) ?? []), index]);
    });
  }

  /** The distinct addresses still to be asked, in input order. */
  get addresses(): string[] {
    return [...this.#indicesByAddress.keys()];
  }

  /** Every address settled before SMTP (DNS or this worker's environment decided), and the domain's outcome. */
  settleAll({ result, reason }: { result: EmailResult; reason: string }): DomainOutcome {
    for (const indices of this.#indicesByAddress.values())
      for (const index of indices) this.#settle(index, outcome(this.#entries[index] as Entry, result, 'precheck', reason, null));
    return this.done(null, null);
  }

  /** An SMTP outcome for each entry of `address` not given one yet, once the mailbox host is known. */
  settleAddress(address: string, mailbox: MailboxWait, make: (entry: Entry) => ProbeOutcome): void {
    for (const index of this.#indicesByAddress.get(address) ?? []) {
      if (this.#outcomes[index] !== undefined || this.#claimed.has(index)) continue;
      this.#claimed.add(index);
      mailbox.whenKnown((host) => this.#settle(index, withMailbox(make(this.#entries[index] as Entry), host)));
    }
  }

  done(isCatchAll: boolean | null, mxHost: string | null): DomainOutcome {
    return {
      domain: this.#domain,
      isCatchAll,
      mxHost,
      outcomes: this.#outcomes.map((value, index) => {
        // Every path settles every entry; a gap is a bug, not a verdict.
        if (value === undefined) throw new Error(`no outcome for ${String(this.#emails[index])}`);
        return value;
      }),
    };
  }

  #settle(index: number, value: ProbeOutcome): void {
    this.#outcomes[index] = value;
    this.#onResult?.(value);
  }
}
