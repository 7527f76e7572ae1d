import {
  header,
  routes,
  startStandIn,
  type RecordedRequest,
  type Reply,
  type RouteContext,
  type StandIn,
} from './stand-in.ts';

export type ZeroBounceStatus =
  'valid' | 'invalid' | 'catch-all' | 'unknown' | 'spamtrap' | 'abuse' | 'do_not_mail';

export interface ZeroBounceFixtures {
  /** Lower-cased address → verdict; other addresses answer `unknown`, or what `fallback` says. */
  verdicts: Map<string, { status: ZeroBounceStatus; sub_status?: string }>;
  fallback?: (address: string) => { status: ZeroBounceStatus; sub_status?: string } | undefined;
  /** Lower-cased address → per-address error returned in `errors` by validatebatch. */
  batchErrors: Map<string, string>;
}

export interface ZeroBounceServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: ZeroBounceFixtures;
}

const INVALID_KEY = 'Invalid API key or your account ran out of credits';

/**
 * ZeroBounce v2 stand-in serving both hosts' paths: `GET /v2/validate` (api.zerobounce.net) and
 * `POST /v2/validatebatch` (bulkapi.zerobounce.net). Failures are HTTP 200 with an error body, as the real API does.
 */
export async function startZeroBounceServer(options: { apiKey?: string } = {}): Promise<ZeroBounceServer> {
  const apiKey = options.apiKey ?? 'zb-test-key-0001';
  const fixtures: ZeroBounceFixtures = { verdicts: new Map(), batchErrors: new Map() };

  const verdict = (address: string) => {
    const found = fixtures.verdicts.get(address.toLowerCase()) ?? fixtures.fallback?.(address.toLowerCase()) ?? { status: 'unknown' as const };
    const domain = address.split('@')[1] ?? '';
    return {
      address,
      status: found.status,
      sub_status: found.sub_status ?? '',
      free_email: false,
      did_you_mean: null,
      account: address.split('@')[0] ?? '',
      domain,
      domain_age_days: '9692',
      smtp_provider: '',
      mx_found: 'true',
      mx_record: `mx.${domain}`,
      firstname: null,
      lastname: null,
      gender: null,
      country: null,
      region: null,
      city: null,
      zipcode: null,
      processed_at: new Date().toISOString().replace('T', ' ').slice(0, 23),
    };
  };

  const validate = (request: RecordedRequest, { rejectKey }: RouteContext): Reply => {
    if (rejectKey || request.query.api_key !== apiKey) return { status: 200, json: { error: INVALID_KEY } };
    const email = request.query.email;
    if (!email) return { status: 200, json: { error: 'Missing parameter: email' } };
    return { status: 200, json: verdict(email) };
  };

  const validateBatch = (request: RecordedRequest, { rejectKey }: RouteContext): Reply => {
    const body = request.body as { api_key?: unknown; email_batch?: unknown } | undefined;
    if (rejectKey || body?.api_key !== apiKey) {
      return {
        status: 200,
        json: { email_batch: [], errors: [{ error: 'Invalid API Key', email_address: 'all' }] },
      };
    }
    const batch = Array.isArray(body.email_batch) ? (body.email_batch as { email_address?: unknown }[]) : [];
    if (batch.length === 0 || batch.length > 200) {
      return {
        status: 200,
        json: {
          email_batch: [],
          errors: [{ error: 'email_batch must hold 1 to 200 entries', email_address: 'all' }],
        },
      };
    }
    const emailBatch: ReturnType<typeof verdict>[] = [];
    const errors: { error: string; email_address: string }[] = [];
    for (const entry of batch) {
      const address = String(entry.email_address ?? '');
      const failure = fixtures.batchErrors.get(address.toLowerCase());
      if (failure) errors.push({ error: failure, email_address: address });
      else emailBatch.push(verdict(address));
    }
    return { status: 200, json: { email_batch: emailBatch, errors } };
  };

  const standIn = await startStandIn(
    routes({
      'GET /v2/validate': validate,
      'POST /v2/validatebatch': (request, context) =>
        header(request, 'content-type')?.startsWith('application/json')
          ? validateBatch(request, context)
          : { status: 400, json: { error: 'Content-Type must be application/json' } },
    }),
  );
  return Object.assign(standIn, { apiKey, fixtures });
}
