const KEY_PARAM = /([?&](?:api_key|apikey|key|token|secret)=)[^&#\s"']*/gi;
const MAX_DETAIL_CHARS = 200;

/**
 * Removes credentials from text that may end up in an error, a log line or a stored job reason:
 * any `api_key=`-style query parameter and every literal secret value passed in (a provider may
 * echo the key back in its error body).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text.replace(KEY_PARAM, '$1[redacted]');
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** A provider-supplied sentence made safe and short enough for an error message. */
export function providerDetail(text: string, secrets: readonly (string | undefined)[] = []): string {
  const clean = redactSecrets(text.replace(/\s+/g, ' ').trim(), secrets);
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}
