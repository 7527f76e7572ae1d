/**
 * The email finder's candidates (CONTRACT §14): the addresses a person's names make under each template, in the
 * order they are worth asking a mail host about.
 */
import { EMAIL_TEMPLATES, type EmailTemplate, localPartFor, nameVariants } from './email-templates.ts';
import type { TriedCandidate } from './find-answer.ts';

/** One address to ask about, and the template that made it. */
export interface Candidate {
  email: string;
  template: EmailTemplate;
}

/** Valid addresses seen per template (a domain's, or every domain's summed). */
export type TemplateCounts = ReadonlyArray<{ template: EmailTemplate; validCount: number }>;

/** Templates by count, most common first; ties and the templates never seen keep `fallback`'s order. */
function byCount(counts: TemplateCounts, fallback: readonly EmailTemplate[]): EmailTemplate[] {
  const count = new Map(counts.map((c) => [c.template, c.validCount]));
  const rank = (t: EmailTemplate) => fallback.indexOf(t);
  return [...fallback].sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0) || rank(a) - rank(b));
}

/**
 * The order templates are tried in at a domain: the domain's learned ones by how often each was seen `Valid`
 * there, then the rest by the global order — itself the templates' counts summed over every domain, falling back
 * to EMAIL_TEMPLATES' order (the documented default) for ties and templates never seen.
 */
export function templateOrder(domain: TemplateCounts, global: TemplateCounts): EmailTemplate[] {
  const globalOrder = byCount(global, EMAIL_TEMPLATES);
  const learned = new Set(domain.filter((c) => c.validCount > 0).map((c) => c.template));
  const domainOrder = byCount(domain, globalOrder).filter((t) => learned.has(t));
  return [...domainOrder, ...globalOrder.filter((t) => !learned.has(t))];
}

/**
 * Spelling pairs of (first, last), the whole names first: a compound name's other spellings are each paired
 * with the other name's whole spelling only (`mary.smith` for Mary-Jane Smith, not `jane.berg` for Mary-Jane van
 * der Berg), so one rare spelling does not multiply the candidates.
 */
function spellings(firstName: string, lastName: string): Array<[string, string]> {
  const firsts = nameVariants(firstName);
  const lasts = nameVariants(lastName);
  if (firsts.length === 0 || lasts.length === 0) return [];
  const pairs: Array<[string, string]> = [[firsts[0]!, lasts[0]!]];
  for (let i = 1; i < Math.max(firsts.length, lasts.length); i += 1) {
    if (firsts[i]) pairs.push([firsts[i]!, lasts[0]!]);
    if (lasts[i]) pairs.push([firsts[0]!, lasts[i]!]);
  }
  return pairs;
}

/**
 * At most `max` distinct candidates at `domain`: the first template of `order` in every spelling (whole names
 * first), then the other templates in order with the whole names, then their other spellings. A compound name
 * thus costs its extra spellings where they are most likely, not a template each. Empty when either name has no
 * letter or digit left once accents and punctuation are gone.
 */
export function findCandidates(
  names: { firstName: string; lastName: string },
  domain: string,
  order: readonly EmailTemplate[],
  max: number,
): Candidate[] {
  const pairs = spellings(names.firstName, names.lastName);
  const [top, ...rest] = order;
  if (pairs.length === 0 || top === undefined) return [];
  const tries: Array<[EmailTemplate, [string, string]]> = [
    ...pairs.map((pair): [EmailTemplate, [string, string]] => [top, pair]),
    ...rest.map((template): [EmailTemplate, [string, string]] => [template, pairs[0]!]),
    ...rest.flatMap((template) => pairs.slice(1).map((pair): [EmailTemplate, [string, string]] => [template, pair])),
  ];
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const [template, [first, last]] of tries) {
    if (candidates.length >= max) break;
    const email = `${localPartFor(template, first, last)}@${domain}`;
    if (seen.has(email)) continue;
    seen.add(email);
    candidates.push({ email, template });
  }
  return candidates;
}

/** What the finder returns: the address with its verdict, or null when nothing was found. */
export interface FoundAddress {
  email: string;
  template: EmailTemplate;
  result: 'Valid' | 'Catch-All';
  /** The catch-all score (CONTRACT §12) of a `Catch-All` guess; null for `Valid`. */
  catchAllScore: number | null;
}

/** One pass's outcome: decided, or some candidates deferred (greylisting) to be asked again later. */
export type FindStep =
  | { kind: 'done'; found: FoundAddress | null; tried: TriedCandidate[] }
  | { kind: 'deferred'; tried: TriedCandidate[]; retry: Candidate[] };

/** Every candidate once, in the order first asked, with its latest reply (a greylisted one asked again later). */
export function mergeTried(earlier: readonly TriedCandidate[], later: readonly TriedCandidate[]): TriedCandidate[] {
  const latest = new Map<string, TriedCandidate>();
  for (const tried of [...earlier, ...later]) latest.set(tried.email, tried);
  return [...latest.values()];
}
