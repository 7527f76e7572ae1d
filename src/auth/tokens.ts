import { hash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString('base64url');

// The one-shot digest: no Hash object per call (a key-authenticated request hashes its key each time).
export const sha256Hex = (value: string) => hash('sha256', value, 'hex');
