/** What an API key may do; a session may do all of it. */
export const ALL_SCOPES = [
  'lists:read',
  'lists:write',
  'leads:read',
  'leads:write',
  'verification:read',
  'verification:write',
  'enrichment:write',
  'webhooks:write',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];
