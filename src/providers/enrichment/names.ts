/**
 * Some providers store names lower-cased ("sean thorne"). Capitalizes each word and each part after
 * a hyphen or apostrophe; a name that already has capitals is kept as written.
 */
export function displayName(raw: string | null | undefined): string | undefined {
  const trimmed = raw?.trim();
  if (!trimmed) return undefined;
  if (trimmed !== trimmed.toLowerCase()) return trimmed;
  return trimmed.replace(
    /(^|[\s'’-])(\p{Ll})/gu,
    (_match, before: string, letter: string) => before + letter.toUpperCase(),
  );
}

/** A present, non-blank string or undefined. */
export function text(raw: string | null | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}
