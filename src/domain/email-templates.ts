/**
 * How organizations build their people's addresses from their names (CONTRACT §12, §14). The order is the
 * global default used until the service has learned better from `Valid` results.
 */
export const EMAIL_TEMPLATES = [
  'first.last',
  'flast',
  'first',
  'firstlast',
  'first_last',
  'last.first',
  'f.last',
  'firstl',
  'last',
  'first-last',
  'lastf',
  'first.l',
  'lastfirst',
  'last_first',
  'fl',
] as const;
export type EmailTemplate = (typeof EMAIL_TEMPLATES)[number];

const BUILDERS: Record<EmailTemplate, (first: string, last: string) => string> = {
  'first.last': (f, l) => `${f}.${l}`,
  flast: (f, l) => `${f[0]}${l}`,
  first: (f) => f,
  firstlast: (f, l) => `${f}${l}`,
  first_last: (f, l) => `${f}_${l}`,
  'last.first': (f, l) => `${l}.${f}`,
  'f.last': (f, l) => `${f[0]}.${l}`,
  firstl: (f, l) => `${f}${l[0]}`,
  last: (_f, l) => l,
  'first-last': (f, l) => `${f}-${l}`,
  lastf: (f, l) => `${l}${f[0]}`,
  'first.l': (f, l) => `${f}.${l[0]}`,
  lastfirst: (f, l) => `${l}${f}`,
  last_first: (f, l) => `${l}_${f}`,
  fl: (f, l) => `${f[0]}${l[0]}`,
};

/**
 * The spellings of one name part an address may use: lowercased, accents removed, apostrophes dropped;
 * a compound (`Mary-Jane`, `van der Berg`) joined whole, and also as its first and its last part.
 */
export function nameVariants(name: string): string[] {
  const plain = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l')
    .replace(/['’`]/g, '');
  const parts = plain.split(/[^a-z0-9]+/).filter(Boolean);
  if (parts.length === 0) return [];
  return [...new Set([parts.join(''), parts[0]!, parts[parts.length - 1]!])];
}

/** The local part `template` makes of one spelling of each name. */
export const localPartFor = (template: EmailTemplate, first: string, last: string): string =>
  BUILDERS[template](first, last);

/** The templates (in `order`) that make `localPart` from the names, or none. */
export function templatesOf(
  localPart: string,
  firstName: string,
  lastName: string,
  order: readonly EmailTemplate[] = EMAIL_TEMPLATES,
): EmailTemplate[] {
  const local = localPart.toLowerCase();
  const firsts = nameVariants(firstName);
  const lasts = nameVariants(lastName);
  return order.filter((template) =>
    firsts.some((f) => lasts.some((l) => localPartFor(template, f, l) === local)),
  );
}
