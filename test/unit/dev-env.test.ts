import { describe, expect, it } from 'vitest';
import { DevEnvError, loadDevEnv } from '../../src/dev/env.ts';

describe('npm run dev environment', () => {
  it('starts everything locally by default, on ports that avoid a system PostgreSQL', () => {
    expect(loadDevEnv({})).toEqual({
      DATABASE_URL: undefined,
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_NAMESPACE: 'default',
      PORT: 3000,
      DEV_PG_PORT: 5433,
      DEV_TEMPORAL_PORT: 7233,
      DEV_TEMPORAL_UI_PORT: 8233,
    });
  });

  it('treats an empty DATABASE_URL or TEMPORAL_ADDRESS as not configured', () => {
    const env = loadDevEnv({ DATABASE_URL: '', TEMPORAL_ADDRESS: '' });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('keeps configured services so the runner does not start its own', () => {
    const env = loadDevEnv({
      DATABASE_URL: 'postgres://db/app',
      TEMPORAL_ADDRESS: 'temporal:7233',
      PORT: '4000',
    });
    expect(env).toMatchObject({
      DATABASE_URL: 'postgres://db/app',
      TEMPORAL_ADDRESS: 'temporal:7233',
      PORT: 4000,
    });
  });

  it('names the variable when a port is invalid', () => {
    expect(() => loadDevEnv({ DEV_PG_PORT: 'seventy' })).toThrow(DevEnvError);
    expect(() => loadDevEnv({ DEV_PG_PORT: '70000' })).toThrow(/DEV_PG_PORT/);
  });
});
