import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { providerOfHost, providerTable } from '../../src/domain/mx-provider.ts';

describe('providerOfHost', () => {
  it.each([
    ['aspmx.l.google.com', 'google'],
    ['ALT1.ASPMX.L.GOOGLE.COM.', 'google'],
    ['acme-com.mail.protection.outlook.com', 'microsoft'],
    // Microsoft 365's newer DNSSEC-signed MX names, and consumer Outlook's.
    ['contoso-com.j-v1.mx.microsoft', 'microsoft'],
    ['Contoso-com.b-v1.MX.Microsoft.', 'microsoft'],
    ['outlook-com.olc.protection.outlook.com', 'microsoft'],
    ['mta7.am0.yahoodns.net', 'yahoo'],
    ['mx.zoho.eu', 'zoho'],
    ['mx0a-00123401.pphosted.com', 'proofpoint'],
    ['us-smtp-inbound-1.mimecast.com', 'mimecast'],
    ['mx.acme.test', 'other'],
    // A look-alike that only ends in the same letters is not the provider.
    ['mx.notgoogle.com', 'other'],
    ['mx.microsoft.example', 'other'],
    ['contoso.notmx.microsoft.test', 'other'],
    ['mxmicrosoft', 'other'],
  ])('%s → %s', (host, provider) => {
    expect(providerOfHost(host)).toBe(provider);
  });
});

describe('providerTable', () => {
  it('gives unknown hosts the per-host default and lets overrides replace single fields', () => {
    const table = providerTable(2, { google: { connections: 9 }, other: { window: 4 } });
    expect(table.other).toEqual({ connections: 2, connectIntervalMs: 0, window: 4, rejectsPerSession: 8 });
    expect(table.google.connections).toBe(9);
    expect(table.google.window).toBe(providerTable(2).google.window);
  });
});

describe('SMTP_PROVIDER_LIMITS', () => {
  it('is parsed from JSON and validated', () => {
    const c = loadConfig({ SMTP_PROVIDER_LIMITS: '{"microsoft":{"connections":3,"connectIntervalMs":250}}' });
    expect(c.SMTP_PROVIDER_LIMITS).toEqual({ microsoft: { connections: 3, connectIntervalMs: 250 } });
    expect(loadConfig({}).SMTP_PROVIDER_LIMITS).toEqual({});
  });

  it.each([
    ['not json', 'not JSON'],
    ['{"aol":{"connections":1}}', 'an unknown provider'],
    ['{"google":{"connections":0}}', 'zero connections'],
    ['{"google":{"sockets":3}}', 'an unknown field'],
  ])('refuses %s (%s)', (value) => {
    const attempt = () => loadConfig({ SMTP_PROVIDER_LIMITS: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/SMTP_PROVIDER_LIMITS/);
  });
});
