import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { log } from '../log.ts';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

export class SecretDecryptionError extends Error {
  constructor() {
    super('A stored secret could not be decrypted (wrong SECRETS_KEY, or the value was tampered with)');
    this.name = 'SecretDecryptionError';
  }
}

/**
 * AES-256-GCM for secrets stored in the database (organizations' provider API keys). `context` is bound
 * as additional authenticated data, so a ciphertext copied to another organization or provider row does
 * not decrypt there. Format: `v1:<iv>:<tag>:<ciphertext>`, each part base64url.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join(':');
  }

  decrypt(sealed: string, context: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new SecretDecryptionError();
    try {
      const decipher = createDecipheriv(ALGORITHM, this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError();
    }
  }
}

// Development and tests only: production refuses to start without SECRETS_KEY (config.ts).
const DEV_KEY = createHash('sha256').update('lead-enrichment development secrets key (not secret)').digest();
let warned = false;

/** The box for this process's SECRETS_KEY, or a fixed development key (with one warning) outside production. */
export function secretBoxFromConfig(config: Pick<Config, 'SECRETS_KEY' | 'NODE_ENV'>): SecretBox {
  if (config.SECRETS_KEY) return new SecretBox(Buffer.from(config.SECRETS_KEY, 'base64'));
  if (config.NODE_ENV === 'production') throw new Error('SECRETS_KEY is required in production');
  if (!warned) {
    warned = true;
    log.warn('SECRETS_KEY is not set: stored provider keys are encrypted with a fixed development key');
  }
  return new SecretBox(DEV_KEY);
}
