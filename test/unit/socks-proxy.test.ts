import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { providerProxies, providerTable } from '../../src/domain/mx-provider.ts';
import { parseSocksUrl } from '../../src/domain/socks-proxy.ts';

describe('socks5:// proxy URLs', () => {
  it('parses host, port and credentials, and shows only a redacted form', () => {
    const proxy = parseSocksUrl('socks5://probe%40acme:p%3Ass@proxy.example:1080');
    expect(proxy).toMatchObject({ host: 'proxy.example', port: 1080, label: 'proxy.example:1080' });
    if (typeof proxy === 'string') throw new Error(proxy);
    expect(proxy.credentials).toEqual({ user: 'probe@acme', password: 'p:ss' });
    expect(proxy.redacted).toBe('socks5://probe%40acme:***@proxy.example:1080');
    // Logged or serialized, a proxy shows no password.
    expect(JSON.stringify(proxy)).not.toContain('p:ss');
    expect(JSON.stringify(proxy)).not.toContain('p%3Ass');
    expect(parseSocksUrl('socks5://[::1]:9050')).toMatchObject({ host: '::1', port: 9050, credentials: null, redacted: 'socks5://[::1]:9050' });
  });

  it.each([
    ['http://u:pw-123@proxy:1080', /scheme must be socks5/],
    ['socks5://u:pw-123@proxy', /port is missing/],
    ['socks5://u@proxy:1080', /user needs a password/],
    ['socks5://:pw-123@proxy:1080', /password needs a user/],
    ['socks5://proxy:1080/path', /nothing after host:port/],
    ['socks5://proxy:70000', /expected socks5:/],
  ])('refuses %s', (value, message) => {
    const parsed = parseSocksUrl(value);
    expect(parsed).toMatch(message);
    expect(parsed).not.toContain('pw-123');
  });
});

describe('SMTP_PROXY', () => {
  it('is absent by default and kept as given when valid', () => {
    expect(loadConfig({}).SMTP_PROXY).toBeUndefined();
    expect(loadConfig({ SMTP_PROXY: '' }).SMTP_PROXY).toBeUndefined();
    expect(loadConfig({ SMTP_PROXY: 'socks5://u:p@127.0.0.1:1080' }).SMTP_PROXY).toBe('socks5://u:p@127.0.0.1:1080');
  });

  it('stops start-up naming the variable, never the password', () => {
    const attempt = () => loadConfig({ SMTP_PROXY: 'socks4://user:hunter2@127.0.0.1:1080' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/SMTP_PROXY: the scheme must be socks5/);
    expect(attempt).not.toThrow(/hunter2/);
  });
});

describe('a provider proxy in SMTP_PROVIDER_LIMITS', () => {
  it('is validated with the limits and decides the egress of that provider only', () => {
    const c = loadConfig({
      SMTP_PROXY: 'socks5://127.0.0.1:1080',
      SMTP_PROVIDER_LIMITS: '{"google":{"connections":3,"proxy":"socks5://g:pw@10.0.0.1:1080"}}',
    });
    expect(c.SMTP_PROVIDER_LIMITS).toEqual({ google: { connections: 3, proxy: 'socks5://g:pw@10.0.0.1:1080' } });
    const egress = providerProxies(c.SMTP_PROVIDER_LIMITS, c.SMTP_PROXY);
    expect(egress.google).toEqual(['socks5://g:pw@10.0.0.1:1080']);
    expect(egress.other).toEqual(['socks5://127.0.0.1:1080']);
    expect(providerProxies(c.SMTP_PROVIDER_LIMITS).microsoft).toEqual([]);
    // The limits table holds limits only: the proxy, password and all, stays out of it.
    expect(providerTable(2, c.SMTP_PROVIDER_LIMITS).google).toEqual({ connections: 3, connectIntervalMs: 100, window: 25, rejectsPerSession: 8 });
  });

  it('takes comma lists of proxies, each one egress, and refuses a bad one among them', () => {
    const c = loadConfig({
      SMTP_PROXY: 'socks5://127.0.0.1:1080, socks5://u:pw@127.0.0.2:1080',
      SMTP_PROVIDER_LIMITS: '{"google":{"proxy":"socks5://10.0.0.1:1080,socks5://10.0.0.2:1080"}}',
      SMTP_SOURCE_ADDRESSES: '127.0.0.2, 127.0.0.3',
    });
    const egress = providerProxies(c.SMTP_PROVIDER_LIMITS, c.SMTP_PROXY);
    expect(egress.google).toEqual(['socks5://10.0.0.1:1080', 'socks5://10.0.0.2:1080']);
    expect(egress.other).toEqual(['socks5://127.0.0.1:1080', 'socks5://u:pw@127.0.0.2:1080']);
    expect(c.SMTP_SOURCE_ADDRESSES).toEqual(['127.0.0.2', '127.0.0.3']);
    expect(() => loadConfig({ SMTP_PROXY: 'socks5://127.0.0.1:1080,http://u:hunter2@h:1' })).toThrow(/SMTP_PROXY: the scheme must be socks5/);
    expect(() => loadConfig({ SMTP_PROXY: 'socks5://127.0.0.1:1080,http://u:hunter2@h:1' })).not.toThrow(/hunter2/);
    expect(() => loadConfig({ SMTP_SOURCE_ADDRESSES: '127.0.0.2,mail.example' })).toThrow(/SMTP_SOURCE_ADDRESSES/);
  });

  it('refuses a bad provider proxy, naming the variable and the provider', () => {
    const attempt = () => loadConfig({ SMTP_PROVIDER_LIMITS: '{"google":{"proxy":"http://g:hunter2@10.0.0.1:1080"}}' });
    expect(attempt).toThrow(/SMTP_PROVIDER_LIMITS: google\.proxy: the scheme must be socks5/);
    expect(attempt).not.toThrow(/hunter2/);
  });
});
