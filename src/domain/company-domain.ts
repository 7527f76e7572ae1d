/** `https://www.Acme.com/about` → `acme.com`; null when the cell holds no host name. */
export function companyDomainOf(raw: string | null | undefined): string | null {
  const trimmed = raw?.trim();
  if (!trimmed) return null;
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).hostname;
    const domain = host.replace(/^www\./, '');
    return /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(domain) ? domain : null;
  } catch {
    return null;
  }
}
