import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets kept so they can be shown again (invite links): AES-256-GCM with a 32-byte key, a random
 * 12-byte IV per secret, and `context` (such as the row's key) as associated data, so a sealed
 * value copied to another row does not open. The sealed form is `v1.<iv>.<tag>.<ciphertext>`,
 * each part base64url.
 */
const VERSION = 'v1';

/** How a key is written (the `SECRETS_KEY` setting): 32 bytes as 64 hex digits or 44 base64 characters. */
export const SECRET_KEY_PATTERN = '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$';

/** A key written as SECRET_KEY_PATTERN says. */
export function parseSecretKey(text: string): Buffer {
  if (!new RegExp(SECRET_KEY_PATTERN).test(text))
    throw new Error('a secrets key is 32 bytes: 64 hex digits or 44 base64 characters');
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * The secret, or undefined when it cannot be recovered: sealed with another key (the key was
 * changed), for another context, or not a sealed value at all.
 */
export function openSecret(key: Buffer, sealed: string, context: string): string | undefined {
  const [version, iv, tag, body, ...rest] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined || rest.length > 0) {
    return undefined;
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}
