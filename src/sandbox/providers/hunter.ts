import { keyGuard, routes, startStandIn, type RecordedRequest, type Reply, type StandIn } from './stand-in.ts';

export type HunterVerifierStatus = 'valid' | 'invalid' | 'accept_all' | 'webmail' | 'disposable' | 'unknown';

export interface HunterFinding {
  email: string;
  score?: number;
  position?: string;
  company?: string;
  phone_number?: string;
  /** `verification.status` of the finding; null when Hunter did not verify it. */
  verification?: HunterVerifierStatus | null;
}

export interface HunterFixtures {
  /** `hunterPersonKey(first, last, domainOrCompany)` → finding; others answer `email: null`. */
  findings: Map<string, HunterFinding>;
  /** Lower-cased address → verifier status; others answer `unknown`. */
  verdicts: Map<string, HunterVerifierStatus>;
}

export interface HunterServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: HunterFixtures;
}

export function hunterPersonKey(firstName: string, lastName: string, domainOrCompany: string): string {
  return [firstName, lastName, domainOrCompany].map((part) => part.trim().toLowerCase()).join('|');
}

/**
 * Hunter v2 stand-in: `GET /v2/email-finder` and `GET /v2/email-verifier`, key in `api_key`;
 * a bad key is 401 with Hunter's `errors` body. The `pending` mode answers 202.
 */
export async function startHunterServer(options: { apiKey?: string } = {}): Promise<HunterServer> {
  const apiKey = options.apiKey ?? 'hunter-test-key-0001';
  const fixtures: HunterFixtures = { findings: new Map(), verdicts: new Map() };

  const errors = (status: number, id: string, details: string): Reply => ({
    status,
    json: { errors: [{ id, code: status, details }] },
  });

  const find = (request: RecordedRequest): Reply => {
    const { first_name: first, last_name: last, domain, company } = request.query;
    if (!first || !last || (!domain && !company)) {
      return errors(
        400,
        'wrong_params',
        'You are missing the domain or company, or the first_name and last_name parameters',
      );
    }
    const scope = domain ?? company ?? '';
    const finding = fixtures.findings.get(hunterPersonKey(first, last, scope));
    return {
      status: 200,
      json: {
        data: {
          first_name: first,
          last_name: last,
          email: finding?.email ?? null,
          score: finding ? (finding.score ?? 90) : null,
          domain: domain ?? finding?.email.split('@')[1] ?? null,
          accept_all: false,
          position: finding?.position ?? null,
          twitter: null,
          linkedin_url: null,
          phone_number: finding?.phone_number ?? null,
          company: finding?.company ?? company ?? null,
          sources: [],
          verification: {
            date: finding?.verification ? '2026-01-01' : null,
            status: finding?.verification ?? null,
          },
        },
        meta: {
          params: {
            first_name: first,
            last_name: last,
            full_name: null,
            domain: domain ?? null,
            company: company ?? null,
          },
        },
      },
    };
  };

  const verify = (request: RecordedRequest): Reply => {
    const email = request.query.email;
    if (!email) return errors(400, 'wrong_params', 'You are missing the email parameter');
    const status = fixtures.verdicts.get(email.toLowerCase()) ?? 'unknown';
    return {
      status: 200,
      json: {
        data: {
          status,
          result: status === 'valid' ? 'deliverable' : status === 'invalid' ? 'undeliverable' : 'risky',
          score: status === 'valid' ? 100 : 50,
          email,
          regexp: true,
          gibberish: false,
          disposable: status === 'disposable',
          webmail: status === 'webmail',
          mx_records: true,
          smtp_server: true,
          smtp_check: status === 'valid',
          accept_all: status === 'accept_all',
          block: false,
          sources: [],
        },
        meta: { params: { email } },
      },
    };
  };

  // Hunter takes its key as the `api_key` query parameter on every endpoint.
  const keyed = keyGuard(apiKey, (request) => request.query.api_key, () => errors(401, 'authentication_failed', 'No user found for the API key supplied'));
  const standIn = await startStandIn(routes({ 'GET /v2/email-finder': keyed(find), 'GET /v2/email-verifier': keyed(verify) }));
  return Object.assign(standIn, { apiKey, fixtures });
}
