import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'lead-enrichment',
      APP_ORIGINS: ['http://localhost:5173'],
      SIGNUP_CREDITS: 0,
      SMTP_PROBE_PORT: 25,
      SMTP_PROBE_TIMEOUT_MS: 10_000,
      SMTP_PROBE_CONCURRENCY: 100,
      SMTP_PROBE_PER_DOMAIN: 2,
      VERIFICATION_PROVIDER: 'zerobounce',
      VERIFICATION_DECISION_TIMEOUT: 7 * 86_400_000,
      ZEROBOUNCE_BASE_URL: 'https://api.zerobounce.net',
      ENRICHMENT_CACHE_DAYS: 30,
      SCRAPE_MAX_FILE_BYTES: 10_485_760,
      SCRAPE_MAX_ROWS: 50_000,
    });
    expect(c.smtpProbeFrom).toBe(`verify@${c.SMTP_PROBE_HELO}`);
    expect(c.DNS_SERVERS).toBeUndefined();
  });

  it('parses lists and durations', () => {
    const c = loadConfig({ APP_ORIGINS: 'https://a.test, https://b.test', DNS_SERVERS: '127.0.0.1:5353,10.0.0.1', VERIFICATION_DECISION_TIMEOUT: '90s' });
    expect(c.APP_ORIGINS).toEqual(['https://a.test', 'https://b.test']);
    expect(c.DNS_SERVERS).toEqual(['127.0.0.1:5353', '10.0.0.1']);
    expect(c.VERIFICATION_DECISION_TIMEOUT).toBe(90_000);
  });

  it('parses SMTP_GREYLIST_SCHEDULE as a list of durations, empty meaning none', () => {
    expect(loadConfig({}).SMTP_GREYLIST_SCHEDULE).toEqual([60_000, 180_000, 360_000, 720_000]);
    expect(loadConfig({ SMTP_GREYLIST_SCHEDULE: '500ms, 20s,1m,2h' }).SMTP_GREYLIST_SCHEDULE).toEqual([
      500, 20_000, 60_000, 7_200_000,
    ]);
    expect(loadConfig({ SMTP_GREYLIST_SCHEDULE: '' }).SMTP_GREYLIST_SCHEDULE).toEqual([]);
    expect(loadConfig({ SMTP_GREYLIST_SCHEDULE: ' ' }).SMTP_GREYLIST_SCHEDULE).toEqual([]);
    for (const bad of ['1m,,3m', '5', '1m,soon', '-1s', '1.5m'])
      expect(() => loadConfig({ SMTP_GREYLIST_SCHEDULE: bad }), bad).toThrow(/SMTP_GREYLIST_SCHEDULE: .*not a duration/);
  });

  it('leaves the Microsoft directory check off by default, at 2 requests a second to login.microsoftonline.com', () => {
    expect(loadConfig({})).toMatchObject({ MS_DIRECTORY_CHECK: 'off', MS_LOGIN_BASE_URL: 'https://login.microsoftonline.com', MS_DIRECTORY_RATE: 2 });
    expect(loadConfig({ MS_DIRECTORY_CHECK: 'on', MS_DIRECTORY_RATE: '0.5' })).toMatchObject({ MS_DIRECTORY_CHECK: 'on', MS_DIRECTORY_RATE: 0.5 });
    for (const env of [{ MS_DIRECTORY_CHECK: 'yes' }, { MS_DIRECTORY_RATE: '0' }, { MS_DIRECTORY_RATE: 'fast' }, { MS_LOGIN_BASE_URL: 'not a url' }]) {
      expect(() => loadConfig(env)).toThrow(new RegExp(Object.keys(env)[0]!));
    }
  });

  it('stops with a message naming every invalid variable', () => {
    const attempt = () => loadConfig({ PORT: 'eighty', VERIFICATION_PROVIDER: 'acme', VERIFICATION_DECISION_TIMEOUT: 'soon' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT/);
    expect(attempt).toThrow(/VERIFICATION_PROVIDER/);
    expect(attempt).toThrow(/VERIFICATION_DECISION_TIMEOUT/);
  });

  it('requires a 32-byte SECRETS_KEY in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEY: is required in production/);
    expect(() => loadConfig({ SECRETS_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/SECRETS_KEY/);
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).SECRETS_KEY).toBeTruthy();
  });
});
