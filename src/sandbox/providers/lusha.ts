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

export interface LushaPerson {
  firstName?: string;
  lastName?: string;
  jobTitle?: { title: string };
  company?: { name: string; fqdn?: string };
  emailAddresses?: { email: string; emailType: 'work' | 'personal' | 'other'; emailConfidence?: string }[];
  phoneNumbers?: { number: string; phoneType: 'mobile' | 'direct' | 'phone'; doNotCall?: boolean }[];
}

export interface LushaFixtures {
  /** Profile URL (scheme, `www.` and trailing slash ignored) → person; others answer a not-found error. */
  people: Map<string, LushaPerson>;
}

export interface LushaServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: LushaFixtures;
}

/**
 * Lusha person API v2 stand-in: `GET /v2/person?linkedinUrl=` with header `api_key`. Failures, a
 * bad key included, come as HTTP 200 with `contact.error`.
 */
export async function startLushaServer(options: { apiKey?: string } = {}): Promise<LushaServer> {
  const apiKey = options.apiKey ?? 'lusha-test-key-0001';
  const fixtures: LushaFixtures = { people: new Map() };

  const failure = (code: number, name: string, message: string): Reply => ({
    status: 200,
    json: { contact: { error: { code, name, message }, isCreditCharged: false, data: null } },
  });

  const keyed = keyGuard(apiKey, (request) => header(request, 'api_key'), () => (failure(401, 'Unauthorized', 'Invalid API key')));
  const person = keyed((request: RecordedRequest): Reply => {
    const linkedinUrl = request.query.linkedinUrl;
    if (!linkedinUrl)
      return { status: 400, json: { message: 'linkedinUrl, email or name and company are required' } };
    const wanted = profileKey(linkedinUrl);
    const found = [...fixtures.people].find(([url]) => profileKey(url) === wanted);
    if (!found) return failure(404, 'Not Found', 'Contact not found');
    const [url, data] = found;
    return {
      status: 200,
      json: {
        contact: {
          error: null,
          isCreditCharged: true,
          data: {
            id: `lusha-${wanted.length}`,
            fullName: [data.firstName, data.lastName].filter(Boolean).join(' '),
            socialLinks: { linkedin: url },
            emailAddresses: [],
            phoneNumbers: [],
            ...data,
          },
        },
      },
    };
  });

  const standIn = await startStandIn(routes({ 'GET /v2/person': person }));
  return Object.assign(standIn, { apiKey, fixtures });
}
