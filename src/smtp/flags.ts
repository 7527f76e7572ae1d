import { createRequire } from 'node:module';
import { z } from 'zod';
import { domainOf, localPartOf } from '../domain/email.ts';
import type { EmailFlags } from './types.ts';

// Local parts that name a function or a mailbox robot rather than a person, compared without
// '.', '-', '_' and any '+tag'. Curated from common role-address lists (RFC 2142 names included).
// prettier-ignore
const ROLE_LOCAL_PARTS = new Set([
  'abuse', 'accounting', 'accounts', 'admin', 'administrator', 'all', 'billing', 'booking', 'bookings',
  'careers', 'compliance', 'contact', 'contactus', 'customercare', 'customerservice', 'customersupport',
  'dev', 'devnull', 'enquiries', 'enquiry', 'events', 'everyone', 'feedback', 'finance', 'ftp',
  'general', 'hello', 'help', 'helpdesk', 'hostmaster', 'hr', 'info', 'information', 'inquiries',
  'inquiry', 'investors', 'invoice', 'invoices', 'ir', 'it', 'jobs', 'legal', 'list', 'mail',
  'mailerdaemon', 'marketing', 'media', 'news', 'newsletter', 'noc', 'noreply', 'donotreply',
  'office', 'operations', 'ops', 'orders', 'partners', 'partnerships', 'payments', 'postmaster',
  'pr', 'press', 'privacy', 'purchasing', 'reception', 'recruiting', 'recruitment', 'reservations',
  'root', 'sales', 'security', 'service', 'services', 'shop', 'staff', 'subscribe', 'support',
  'sysadmin', 'team', 'tech', 'unsubscribe', 'usenet', 'uucp', 'webmaster', 'welcome', 'www',
]);

const domainList = z.array(z.string());
const require = createRequire(import.meta.url);

function loadDomainSet(moduleId: string): Set<string> {
  return new Set(domainList.parse(require(moduleId)).map((domain) => domain.toLowerCase()));
}

// The lists are large (the disposable one holds ~100k names): read them on first use only.
let lists: { disposable: Set<string>; disposableWildcards: Set<string>; free: Set<string> } | null = null;
function domainLists(): NonNullable<typeof lists> {
  lists ??= {
    disposable: loadDomainSet('disposable-email-domains/index.json'),
    // Domains whose every subdomain is disposable too.
    disposableWildcards: loadDomainSet('disposable-email-domains/wildcard.json'),
    free: loadDomainSet('email-providers/all.json'),
  };
  return lists;
}

function isDisposableDomain(domain: string): boolean {
  const { disposable, disposableWildcards } = domainLists();
  if (disposable.has(domain)) return true;
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i += 1) {
    if (disposableWildcards.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}

export function isRoleLocalPart(localPart: string): boolean {
  const base = localPart.toLowerCase().split('+', 1)[0] ?? '';
  return ROLE_LOCAL_PARTS.has(base.replace(/[._-]/g, ''));
}

export function emailFlags(email: string): EmailFlags {
  const domain = domainOf(email);
  return {
    disposable: domain !== '' && isDisposableDomain(domain),
    role: isRoleLocalPart(localPartOf(email)),
    free: domain !== '' && domainLists().free.has(domain),
  };
}

/** `; flags: role, free` (empty when no flag is set), appended to an outcome's reason. */
export function describeFlags(flags: EmailFlags): string {
  const set = (Object.keys(flags) as (keyof EmailFlags)[]).filter((flag) => flags[flag]);
  return set.length === 0 ? '' : `; flags: ${set.join(', ')}`;
}
