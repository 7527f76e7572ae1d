import {
  header,
  routes,
  profileKey,
  keyGuard,
  startStandIn,
  type RecordedRequest,
  type Reply,
  type StandIn,
} from './stand-in.ts';

/** The `data` object of a PDL person record (the fields this service reads, and a few more). */
export interface PdlPerson {
  full_name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  job_title?: string | null;
  job_company_name?: string | null;
  job_company_website?: string | null;
  work_email?: string | boolean | null;
  personal_emails?: string[] | boolean;
  mobile_phone?: string | boolean | null;
  phone_numbers?: string[] | boolean;
  linkedin_url?: string | null;
}

export interface PdlFixtures {
  /** Profile URL (any spelling: scheme, `www.` and trailing slash are ignored) → person; others are not found... */
  people: Map<string, PdlPerson>;
  /** ...unless this knows them (the sandbox's made-up people). */
  fallback?: (profileUrl: string) => PdlPerson | undefined;
}

export interface PdlServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: PdlFixtures;
}

/** People Data Labs stand-in: `GET /v5/person/enrich?profile=` with `X-Api-Key`; 404 for no match, 401 for a bad key. */
export async function startPdlServer(options: { apiKey?: string } = {}): Promise<PdlServer> {
  const apiKey = options.apiKey ?? 'pdl-test-key-0001';
  const fixtures: PdlFixtures = { people: new Map() };

  const keyed = keyGuard(apiKey, (request) => header(request, 'x-api-key'), () => ({
    status: 401,
    json: { status: 401, error: { type: 'authentication_error', message: 'Invalid API Key' } },
  }));
  const enrich = keyed((request: RecordedRequest): Reply => {
    const profile = request.query.profile;
    if (!profile) {
      return {
        status: 400,
        json: { status: 400, error: { type: 'invalid_request_error', message: 'profile is required' } },
      };
    }
    const wanted = profileKey(profile);
    const person = [...fixtures.people].find(([url]) => profileKey(url) === wanted)?.[1] ?? fixtures.fallback?.(wanted);
    if (!person) {
      return {
        status: 404,
        json: {
          status: 404,
          error: { type: 'not_found', message: 'No records were found matching your request' },
        },
      };
    }
    return { status: 200, json: { status: 200, likelihood: 9, data: { linkedin_url: wanted, ...person } } };
  });

  const standIn = await startStandIn(routes({ 'GET /v5/person/enrich': enrich }));
  return Object.assign(standIn, { apiKey, fixtures });
}
