import { LEAD_INPUT_FIELDS } from './lead.ts';
import type { LeadInput } from './lead-input.ts';

/** What adding or importing does with a lead already in the list (CONTRACT §15): skip it, or fill its empty fields. */
export const ON_DUPLICATE = ['skip', 'update'] as const;
export type OnDuplicate = (typeof ON_DUPLICATE)[number];

/** The keys a list's lead is recognized by: its email, case-insensitively, and its (normalized) profile URL. */
export interface LeadKeys {
  emailKey: string | null;
  networkUrl: string | null;
}

export const emailKeyOf = (email: string | null | undefined) => (email ? email.toLowerCase() : null);
const keysOf = (input: LeadInput): LeadKeys => ({ emailKey: emailKeyOf(input.email), networkUrl: input.networkUrl ?? null });

export interface DuplicateSplit {
  /** The leads to insert, in request order. */
  fresh: LeadInput[];
  /** 0-based positions in the batch of the leads that matched an earlier one. */
  duplicates: number[];
  /** `update`: per existing lead id, the values its empty fields take (the earliest duplicate's value wins). */
  fills: Map<string, Partial<LeadInput>>;
}

/** Fills `target`'s empty fields from `source`, in place. */
function fillEmpty(target: Partial<LeadInput>, source: LeadInput) {
  for (const field of LEAD_INPUT_FIELDS) {
    if ((target[field] ?? null) === null && source[field] !== null) target[field] = source[field];
  }
}

/**
 * Splits a batch against the list's leads that share a key with it (`existing`) and against the leads earlier in
 * the batch. A duplicate of an earlier lead of the batch fills that lead before it is inserted (`update`).
 */
export function splitDuplicates(batch: readonly LeadInput[], existing: ReadonlyArray<LeadKeys & { id: string }>, onDuplicate: OnDuplicate): DuplicateSplit {
  type Owner = { existing: string } | { fresh: LeadInput };
  const byEmail = new Map<string, Owner>();
  const byUrl = new Map<string, Owner>();
  for (const lead of existing) {
    if (lead.emailKey) byEmail.set(lead.emailKey, { existing: lead.id });
    if (lead.networkUrl) byUrl.set(lead.networkUrl, { existing: lead.id });
  }
  const split: DuplicateSplit = { fresh: [], duplicates: [], fills: new Map() };
  batch.forEach((input, index) => {
    const { emailKey, networkUrl } = keysOf(input);
    const owner = (emailKey ? byEmail.get(emailKey) : undefined) ?? (networkUrl ? byUrl.get(networkUrl) : undefined);
    if (!owner) {
      const lead = { ...input };
      split.fresh.push(lead);
      if (emailKey) byEmail.set(emailKey, { fresh: lead });
      if (networkUrl) byUrl.set(networkUrl, { fresh: lead });
      return;
    }
    split.duplicates.push(index);
    if (onDuplicate === 'skip') return;
    if ('fresh' in owner) {
      fillEmpty(owner.fresh, input);
      return;
    }
    const fill = split.fills.get(owner.existing) ?? {};
    fillEmpty(fill, input);
    split.fills.set(owner.existing, fill);
  });
  return split;
}
