import { startBraveServer, type BraveServer } from './brave.ts';
import { startHunterServer, type HunterServer } from './hunter.ts';
import { startLushaServer, type LushaServer } from './lusha.ts';
import { startPdlServer, type PdlServer } from './pdl.ts';
import { startReacherServer, type ReacherServer } from './reacher.ts';
import { startSerperServer, type SerperServer } from './serper.ts';
import { startZeroBounceServer, type ZeroBounceServer } from './zerobounce.ts';

export interface ProviderServers {
  zerobounce: ZeroBounceServer;
  reacher: ReacherServer;
  serper: SerperServer;
  brave: BraveServer;
  pdl: PdlServer;
  hunter: HunterServer;
  lusha: LushaServer;
  /** Base URLs, named like the configuration variables they stand in for. */
  urls: {
    ZEROBOUNCE_BASE_URL: string;
    ZEROBOUNCE_BULK_BASE_URL: string;
    REACHER_BASE_URL: string;
    SERPER_BASE_URL: string;
    BRAVE_BASE_URL: string;
    PDL_BASE_URL: string;
    HUNTER_BASE_URL: string;
    LUSHA_BASE_URL: string;
  };
  /** The keys each stand-in accepts, named like their configuration variables. */
  keys: {
    ZEROBOUNCE_API_KEY: string;
    SERPER_API_KEY: string;
    BRAVE_API_KEY: string;
    PDL_API_KEY: string;
    HUNTER_API_KEY: string;
    LUSHA_API_KEY: string;
  };
  /** Every stand-in back to normal mode with its request log cleared (fixtures are kept). */
  resetAll(): void;
  close(): Promise<void>;
}

/** Starts one stand-in per outside provider on loopback ephemeral ports. Reacher runs without a secret. */
export async function startProviderServers(): Promise<ProviderServers> {
  const [zerobounce, reacher, serper, brave, pdl, hunter, lusha] = await Promise.all([
    startZeroBounceServer(),
    startReacherServer(),
    startSerperServer(),
    startBraveServer(),
    startPdlServer(),
    startHunterServer(),
    startLushaServer(),
  ]);
  const all = [zerobounce, reacher, serper, brave, pdl, hunter, lusha];
  return {
    zerobounce,
    reacher,
    serper,
    brave,
    pdl,
    hunter,
    lusha,
    urls: {
      ZEROBOUNCE_BASE_URL: zerobounce.url,
      ZEROBOUNCE_BULK_BASE_URL: zerobounce.url,
      REACHER_BASE_URL: reacher.url,
      SERPER_BASE_URL: serper.url,
      BRAVE_BASE_URL: brave.url,
      PDL_BASE_URL: pdl.url,
      HUNTER_BASE_URL: hunter.url,
      LUSHA_BASE_URL: lusha.url,
    },
    keys: {
      ZEROBOUNCE_API_KEY: zerobounce.apiKey,
      SERPER_API_KEY: serper.apiKey,
      BRAVE_API_KEY: brave.apiKey,
      PDL_API_KEY: pdl.apiKey,
      HUNTER_API_KEY: hunter.apiKey,
      LUSHA_API_KEY: lusha.apiKey,
    },
    resetAll() {
      for (const server of all) server.reset();
    },
    async close() {
      await Promise.all(all.map((server) => server.close()));
    },
  };
}
