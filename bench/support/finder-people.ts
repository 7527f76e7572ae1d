/**
 * The finder benchmark's people (bench/finder.ts) and their mail hosts (bench/support/finder-fleet.ts), from the
 * same deterministic rules in both processes: domain `d` of `domains`, person `k` of `perDomain`.
 */
import { type EmailTemplate, localPartFor, nameVariants } from '../../src/domain/email-templates.ts';

// Distinct initials: no two people of a domain share a `flast` or `f.last` address.
const FIRSTS = ['Alice', 'Bruno', 'Clara', 'Diego', 'Elena', 'Félix', 'Greta', 'Hugo', 'Irène', 'Jonas', 'Karin', 'Louis', 'Marta', 'Nils', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sven', 'Tara'];
const LASTS = ['Moreau', 'Schmidt', 'García', 'Rossi', 'Novak', 'Jansen', 'Dubois', 'Kowalski', 'Lindqvist', "O'Neil", 'Silva', 'Weber', 'Costa', 'Nagy', 'Popescu', 'Horvat', 'Berg', 'Larsen', 'Martin', 'Fischer', 'Keller', 'Meyer', 'Brun'];
/** The domains' templates, as common as in the wild (first.last most of all). */
const MIX: EmailTemplate[] = ['first.last', 'first.last', 'first.last', 'flast', 'flast', 'first', 'firstlast', 'f.last', 'first_last', 'last.first'];

export const domainOf = (d: number) => `co${d}.bench`;
/** One domain in five accepts every address. */
export const isCatchAll = (d: number) => d % 5 === 0;
export const templateOf = (d: number): EmailTemplate => MIX[(d * 7) % MIX.length]!;
/** The last person of each domain has no mailbox there: the finder cannot complete them. */
export const exists = (k: number, perDomain: number) => k < perDomain - 1;

export function person(d: number, k: number): { firstName: string; lastName: string } {
  return { firstName: FIRSTS[k % FIRSTS.length]!, lastName: LASTS[(k + d) % LASTS.length]! };
}

/** The person's real address under their domain's template. */
export function mailboxOf(d: number, k: number): string {
  const { firstName, lastName } = person(d, k);
  return `${localPartFor(templateOf(d), nameVariants(firstName)[0]!, nameVariants(lastName)[0]!)}@${domainOf(d)}`;
}

/** The address domain `d`'s MX host listens on (one host per domain). */
export const hostIpOf = (d: number) => `127.${1 + Math.floor(d / 62_500)}.${1 + (Math.floor(d / 250) % 250)}.${1 + (d % 250)}`;
