import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  apiKeyStart,
  generateApiKey,
  isWellFormedApiKey,
} from '../../src/domain/api-key-format.ts';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('API key format', () => {
  it('is the prefix, 32 random base62 characters and a 6-character checksum', () => {
    const key = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(key).toHaveLength(4 + 32 + 6);
    expect(BASE62.test(key.slice(4))).toBe(true);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('draws fresh randomness every time', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey()));
    expect(keys.size).toBe(200);
  });

  it('maps bytes onto base62 and drops those that would bias the alphabet', () => {
    // 0..247 map to BASE62[byte % 62]; 248..255 (beyond 4 × 62) are dropped and more bytes are drawn.
    const draws = [
      (size: number) => Uint8Array.from({ length: size }, (_, i) => (i === 0 ? 247 : 248 + (i % 8))),
      (size: number) => Uint8Array.from({ length: size }, (_, i) => i),
    ];
    let calls = 0;
    const key = generateApiKey((size) => draws[calls++]!(size));
    expect(calls).toBe(2);
    expect(key.slice(4, 36)).toBe('z0123456789ABCDEFGHIJKLMNOPQRSTU');
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('rejects any single changed character (the checksum catches typos)', () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length; i++) {
      const swapped = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiKey(key.slice(0, i) + swapped + key.slice(i + 1))).toBe(false);
    }
  });

  it.each([
    ['empty', ''],
    ['wrong prefix', 'sk_' + 'a'.repeat(38)],
    ['prefix only', 'lek_'],
    ['too short', 'lek_' + 'a'.repeat(30)],
    ['non-base62 characters', 'lek_' + 'a'.repeat(31) + '-' + 'a'.repeat(6)],
    ['whitespace around', ` ${generateApiKey()} `],
    ['absurdly long', 'lek_' + 'a'.repeat(500)],
  ])('rejects %s', (_name, value) => {
    expect(isWellFormedApiKey(value)).toBe(false);
  });

  it('keeps the first 8 characters as the recognizable start', () => {
    const key = generateApiKey();
    expect(apiKeyStart(key)).toBe(key.slice(0, 8));
    expect(apiKeyStart(key)).toMatch(/^lek_[0-9A-Za-z]{4}$/);
  });
});
