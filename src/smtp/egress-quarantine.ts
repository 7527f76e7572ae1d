import type { MxProvider } from '../domain/mx-provider.ts';

/** Reason code (CONTRACT §13) that starts the reason of an address no egress was left to ask. */
export const EGRESS_BLOCKED = 'egress_blocked';

export interface Quarantine {
  /** An `mxProvider` value, or the MX host name for `other`. */
  provider: string;
  until: Date;
  /** The reply that blamed the egress. */
  reply: string;
}

/** Who refused: a provider refuses an address on all its hosts; an unrecognised host only for itself. */
export function quarantineKey(provider: MxProvider, host: string): string {
  return provider === 'other' ? host.toLowerCase() : provider;
}

/**
 * Egresses a mail provider refused (a reply that named a blocklist, our reverse DNS or HELO: CONTRACT §13),
 * each kept away from that provider for a while; another egress takes its addresses. This process's memory:
 * another worker learns it from the provider's own reply, at the cost of one session.
 */
export class EgressQuarantine {
  readonly #durationMs: number;
  readonly #held = new Map<string, Map<string, Quarantine>>();

  constructor(durationMs: number) {
    this.#durationMs = durationMs;
  }

  block(egress: string, provider: string, reply: string): void {
    const byProvider = this.#held.get(egress) ?? new Map<string, Quarantine>();
    this.#held.set(egress, byProvider);
    byProvider.set(provider, { provider, until: new Date(Date.now() + this.#durationMs), reply });
  }

  /** The quarantine that keeps `egress` away from `provider` now, if any. */
  holding(egress: string, provider: string): Quarantine | undefined {
    const held = this.#held.get(egress)?.get(provider);
    if (held && held.until.getTime() <= Date.now()) {
      this.#held.get(egress)?.delete(provider);
      return undefined;
    }
    return held;
  }

  /** Every quarantine of `egress` still in force (for `/readyz`). */
  of(egress: string): Quarantine[] {
    return [...(this.#held.get(egress)?.keys() ?? [])].flatMap((provider) => this.holding(egress, provider) ?? []);
  }
}
