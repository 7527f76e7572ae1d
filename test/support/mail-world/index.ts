export type {
  DomainSpec,
  HostBehaviour,
  MailHost,
  MailWorldDescription,
  MxSpec,
} from '../../../src/sandbox/mail-world/types.ts';
export type { MailWorld } from '../../../src/sandbox/mail-world/world.ts';
export { startMailWorld } from '../../../src/sandbox/mail-world/world.ts';
export { mailWorldEnv } from './env.ts';
export type {
  ListedAddress,
  StandardDomain,
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
