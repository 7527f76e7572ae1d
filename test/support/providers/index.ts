// The provider stand-ins live in src/sandbox (`npm run dev` serves them too); tests start them from here.
export * from '../../../src/sandbox/providers/index.ts';
