// The three verification methods as the forms offer them, with the provider's price.
import { money } from '../format.ts';
import { API_PRICE_MICROS, type VerificationMethod } from '../../src/domain/verification.ts';
import { moneyFromMicros } from './catch-all-scores.tsx';

/** The provider's price per address; a job's estimate route answers the same figure. */
const PRICE_PER_EMAIL = API_PRICE_MICROS / 1_000_000;

export const METHODS = [
  {
    value: 'smtp_only',
    title: 'Mail server check (free)',
    text: 'Asks each address’s mail server whether the mailbox exists, without sending mail. Free. Some servers accept every address (catch-all) or do not answer (unknown): those stay open.',
  },
  {
    value: 'smtp_api_fallback',
    title: `Mail server check, then pay to fill the gaps (${money(PRICE_PER_EMAIL)} per gap)`,
    text: 'Runs the free check first, then shows what is still unknown or catch-all and what filling it would cost. You choose: keep the free result, or pay the verification provider for the unknowns, the catch-alls or both.',
  },
  {
    value: 'api_only',
    title: `Provider only (${money(PRICE_PER_EMAIL)} per email)`,
    text: 'Free syntax and domain checks first (bad addresses cost nothing), then every remaining address goes to the paid verification provider.',
  },
] as const satisfies ReadonlyArray<{ value: VerificationMethod; title: string; text: string }>;

/** The most an `api_only` job of `addresses` can cost (the free pre-checks only lower it), exact from micro-dollars. */
export const apiOnlyCeiling = (addresses: number) => moneyFromMicros(addresses * API_PRICE_MICROS);

