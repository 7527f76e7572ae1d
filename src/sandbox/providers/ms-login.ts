import { type RecordedRequest, type Reply, startStandIn, type StandIn } from './stand-in.ts';

/** How one domain's Microsoft tenant answers GetCredentialType. */
export type MsTenant =
  /** Known users (local parts or whole addresses) → IfExistsResult 0, anyone else → 1. */
  | { kind: 'honest'; users: readonly string[] }
  /** IfExistsResult 0 for every address, real or not (a tenant whose directory answers for anyone). */
  | { kind: 'accepts_all' }
  /** Microsoft slowing the caller down: ThrottleStatus 1 (with a meaningless IfExistsResult 0), or HTTP 429. */
  | { kind: 'throttles'; http429?: boolean }
  /** Every address gets this IfExistsResult (5, 6, or a code the service does not know, e.g. 2 or 4). */
  | { kind: 'code'; ifExistsResult: number };

export interface MsLoginServer extends StandIn {
  /** Tenants by domain (lower-case); a domain without a tenant answers 1, as Microsoft does for one it does not host. */
  readonly tenants: Map<string, MsTenant>;
  /** The usernames asked so far, in order (every request is in `requests`, with its path and arrival time). */
  usernames(): string[];
}

const PATH = '/common/GetCredentialType';

function usernameOf(request: RecordedRequest): string | null {
  const body = request.body as Record<string, unknown> | undefined;
  // The sign-in page sends `username`; clients also send `Username`: Microsoft takes either.
  const value = body?.Username ?? body?.username;
  return typeof value === 'string' ? value : null;
}

/** A GetCredentialType answer in Microsoft's shape (the fields the service reads, and a few it ignores). */
function credentialType(username: string, ifExistsResult: number, throttleStatus = 0): Reply {
  return {
    status: 200,
    json: {
      Username: username,
      Display: username,
      IfExistsResult: ifExistsResult,
      IsUnmanaged: false,
      ThrottleStatus: throttleStatus,
      Credentials: { PrefCredential: 1, HasPassword: true, RemoteNgcParams: null, FidoParams: null, SasParams: null },
      EstsProperties: { UserTenantBranding: null, DomainType: 3 },
      IsSignupDisallowed: true,
      apiCanary: 'stand-in',
    },
  };
}

/**
 * Stand-in of Microsoft's sign-in host (login.microsoftonline.com): `POST /common/GetCredentialType` only, as the
 * sign-in page calls it; any other path is a 404 (and is recorded, so a test sees the service never asks one).
 */
export async function startMsLoginServer(options: { tenants?: Record<string, MsTenant> } = {}): Promise<MsLoginServer> {
  const tenants = new Map(Object.entries(options.tenants ?? {}).map(([domain, tenant]) => [domain.toLowerCase(), tenant]));

  const route = (request: RecordedRequest): Reply => {
    if (request.method !== 'POST' || request.path !== PATH) return { status: 404, json: { error: 'not found' } };
    const username = usernameOf(request);
    if (username === null) return { status: 400, json: { error: { code: 'AADSTS90100', message: 'username is empty' } } };
    const address = username.trim().toLowerCase();
    const [local = '', domain = ''] = address.split('@');
    const tenant = tenants.get(domain);
    switch (tenant?.kind) {
      case undefined:
        return credentialType(username, 1);
      case 'honest':
        return credentialType(username, tenant.users.some((u) => u.toLowerCase() === local || u.toLowerCase() === address) ? 0 : 1);
      case 'accepts_all':
        return credentialType(username, 0);
      case 'throttles':
        return tenant.http429 ? { status: 429, json: { error: 'Too many requests' } } : credentialType(username, 0, 1);
      case 'code':
        return credentialType(username, tenant.ifExistsResult);
    }
  };

  const standIn = await startStandIn(route);
  return Object.assign(standIn, {
    tenants,
    usernames: () => standIn.requests.map(usernameOf).filter((u): u is string => u !== null),
  });
}
