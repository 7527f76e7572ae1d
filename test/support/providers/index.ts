// The provider stand-ins live in src/sandbox (`npm run dev` serves them too); tests start them from here.
export { type ProviderServers, startProviderServers } from '../../../src/sandbox/providers/index.ts';
export { hunterPersonKey } from '../../../src/sandbox/providers/hunter.ts';
