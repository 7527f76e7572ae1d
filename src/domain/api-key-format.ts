import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format, after GitHub's token format: a fixed prefix that secret scanners can search for,
 * random base62 characters, and a CRC32 checksum in base62. The checksum lets a malformed or mistyped
 * key be refused without touching the database; it is not a secret and proves nothing about validity.
 *
 *   lek_ + 32 random base62 characters (≈ 190 bits) + 6 base62 checksum characters
 */
export const API_KEY_PREFIX = 'lek_';
export const API_KEY_RANDOM_LENGTH = 32;
export const API_KEY_CHECKSUM_LENGTH = 6; // 62^6 > 2^32: every CRC32 fits
/** How many leading characters of a key are kept in clear for recognition (`start`). */
export const API_KEY_START_LENGTH = 8;
const MAX_KEY_LENGTH = 128;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH},}$`);

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

const checksumOf = (body: string) => toBase62(crc32(body), API_KEY_CHECKSUM_LENGTH);

/** Uniform base62 characters: bytes ≥ 248 (= 4 × 62) are dropped so no character is favoured. */
function randomBase62(length: number, random: (size: number) => Uint8Array): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new key; `random` is injectable so tests can pin the bytes. */
export function generateApiKey(random: (size: number) => Uint8Array = randomBytes): string {
  const body = API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH, random);
  return body + checksumOf(body);
}

/** Prefix, alphabet, length and checksum all hold: only then is the key worth a database lookup. */
export function isWellFormedApiKey(value: string): boolean {
  if (value.length > MAX_KEY_LENGTH || !SHAPE.test(value)) return false;
  const body = value.slice(0, -API_KEY_CHECKSUM_LENGTH);
  if (body.length < API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH) return false;
  return checksumOf(body) === value.slice(-API_KEY_CHECKSUM_LENGTH);
}

export const apiKeyStart = (key: string) => key.slice(0, API_KEY_START_LENGTH);
