/** Mailbox providers recognised by the host names of their MX servers (suffix match). */
const PROVIDERS: ReadonlyArray<[suffix: string, provider: string]> = [
  ['google.com', 'google'],
  ['googlemail.com', 'google'],
  ['outlook.com', 'microsoft'],
  ['yahoodns.net', 'yahoo'],
  ['zoho.com', 'zoho'],
  ['zoho.eu', 'zoho'],
  ['icloud.com', 'apple'],
  ['mimecast.com', 'mimecast'],
  ['pphosted.com', 'proofpoint'],
  ['messagelabs.com', 'broadcom'],
  ['barracudanetworks.com', 'barracuda'],
  ['protonmail.ch', 'proton'],
  ['secureserver.net', 'godaddy'],
  ['fastmail.com', 'fastmail'],
  ['yandex.net', 'yandex'],
  ['mail.ru', 'mailru'],
];

/** The provider behind an MX host, null when it is not one of the known ones (or there is no host). */
export function mxProviderOf(mxHost: string | null): string | null {
  if (!mxHost) return null;
  const host = mxHost.toLowerCase().replace(/\.$/, '');
  for (const [suffix, provider] of PROVIDERS) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
  }
  return null;
}
