import {
  header,
  routes,
  startStandIn,
  type RecordedRequest,
  type Reply,
  type RouteContext,
  type StandIn,
} from './stand-in.ts';

export type ReacherReachability = 'safe' | 'risky' | 'invalid' | 'unknown';

export interface ReacherFixtures {
  /** Lower-cased address → outcome; other addresses answer `unknown` with an SMTP error. */
  outcomes: Map<string, { is_reachable: ReacherReachability; is_catch_all?: boolean }>;
}

export interface ReacherServer extends StandIn {
  readonly apiKey: string | undefined;
  readonly fixtures: ReacherFixtures;
}

/**
 * Reacher stand-in: `POST /v1/check_email {to_email}`. With `apiKey` set it requires the key in
 * `x-reacher-secret` (self-hosted) or `Authorization` (SaaS), else 401.
 */
export async function startReacherServer(options: { apiKey?: string } = {}): Promise<ReacherServer> {
  const apiKey = options.apiKey;
  const fixtures: ReacherFixtures = { outcomes: new Map() };

  const check = (request: RecordedRequest, { rejectKey }: RouteContext): Reply => {
    const keyAccepted =
      apiKey === undefined ||
      header(request, 'x-reacher-secret') === apiKey ||
      header(request, 'authorization') === apiKey;
    if (rejectKey || !keyAccepted) {
      return { status: 401, json: { error: 'Unauthorized: invalid or missing secret' } };
    }
    const toEmail = (request.body as { to_email?: unknown } | undefined)?.to_email;
    if (typeof toEmail !== 'string') return { status: 400, json: { error: 'to_email is required' } };
    const [username = '', domain = ''] = toEmail.split('@');
    const outcome = fixtures.outcomes.get(toEmail.toLowerCase());
    const smtp = outcome
      ? {
          can_connect_smtp: true,
          has_full_inbox: false,
          is_catch_all: outcome.is_catch_all ?? false,
          is_deliverable: outcome.is_reachable === 'safe' || outcome.is_reachable === 'risky',
          is_disabled: false,
        }
      : { error: { type: 'SmtpError', message: 'connection timed out' } };
    return {
      status: 200,
      json: {
        input: toEmail,
        is_reachable: outcome?.is_reachable ?? 'unknown',
        misc: { is_disposable: false, is_role_account: false, gravatar_url: null },
        mx: { accepts_mail: true, records: [`mx.${domain}.`] },
        smtp,
        syntax: { address: toEmail, domain, is_valid_syntax: true, username },
      },
    };
  };

  const standIn = await startStandIn(routes({ 'POST /v1/check_email': check }));
  return Object.assign(standIn, { apiKey, fixtures });
}
