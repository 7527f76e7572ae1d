import { describe, expect, it } from 'vitest';
import { dnsblVerdict, publicIpOf } from '../../src/smtp/egress-health.ts';

describe('a DNSBL answer (CONTRACT §13)', () => {
  it.each([
    ['127.0.0.2', 'listed'],
    ['127.0.0.4', 'listed'],
    [null, 'clean'],
    ['127.255.255.254', 'unavailable'],
    ['127.255.255.252', 'unavailable'],
    ['unavailable', 'unavailable'],
    ['10.0.0.1', 'unavailable'],
  ] as const)('%s → %s', (answer, verdict) => {
    expect(dnsblVerdict(answer)).toBe(verdict);
  });
});

describe("an egress's public address", () => {
  const map = { '10.0.0.10': '203.0.113.10', '10.0.0.5:1080': '203.0.113.20', direct: '203.0.113.30' };
  it('is what SMTP_EGRESS_PUBLIC_IPS maps its source address or proxy host:port to', () => {
    expect(publicIpOf({ localAddress: '10.0.0.10', proxy: null }, map)).toBe('203.0.113.10');
    expect(publicIpOf({ proxy: { label: '10.0.0.5:1080' } }, map)).toBe('203.0.113.20');
    expect(publicIpOf({ proxy: null }, map)).toBe('203.0.113.30');
  });
  it('is a public source address itself, and unknown for an unmapped private one or proxy', () => {
    expect(publicIpOf({ localAddress: '198.51.100.7', proxy: null }, {})).toBe('198.51.100.7');
    expect(publicIpOf({ localAddress: '192.168.1.7', proxy: null }, {})).toBeNull();
    expect(publicIpOf({ localAddress: '127.0.0.2', proxy: null }, {})).toBeNull();
    expect(publicIpOf({ proxy: { label: 'proxy.example:1080' } }, {})).toBeNull();
  });
});
