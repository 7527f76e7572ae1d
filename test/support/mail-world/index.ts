export type {
  DomainSpec,
  HostBehaviour,
  HostStats,
  MailHost,
  MailWorldDescription,
  MxSpec,
  SessionRecord,
} from './types.ts';
export type { MailWorld } from './world.ts';
export { startMailWorld } from './world.ts';
export type {
  DomainExpectation,
  ListedAddress,
  StandardDomain,
  StandardWorldOptions,
} from './standard-world.ts';
export {
  knownAddress,
  STANDARD_DOMAINS,
  STANDARD_EXPECTATIONS,
  STANDARD_LIMITS,
  standardAddressList,
  standardWorld,
  unknownAddress,
} from './standard-world.ts';
