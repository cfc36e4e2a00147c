import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ClientDocument, ClientFeature } from './edge.index.js';
import type { EdgeToken } from './edge.tokens.js';
import type { FetchResult, UpstreamApi } from './edge.upstream-http.js';

/**
 * A bootstrap file's text as a client-features document. Two forms, as Unleash Edge reads them:
 * the simple map `{"flag": {"enabled": true, "variant": "name"}}` (each flag on for everyone in
 * project `default`, with that one variant), else a client-features document (`{features: […]}`).
 * Throws with the reason on anything else.
 */
export function parseBootstrap(text: string): ClientDocument {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('a bootstrap file holds a JSON object');
  }
  const record = parsed as Record<string, unknown>;
  if (Array.isArray(record.features)) {
    for (const [i, f] of (record.features as unknown[]).entries()) {
      const feature = f as { name?: unknown; enabled?: unknown } | null;
      if (typeof feature?.name !== 'string' || typeof feature.enabled !== 'boolean') {
        throw new Error(`features[${i}] needs a string name and a boolean enabled`);
      }
    }
    return record as unknown as ClientDocument;
  }
  const features = Object.entries(record).map(([name, value]): ClientFeature => {
    const simple = value as { enabled?: unknown; variant?: unknown } | null;
    if (typeof simple?.enabled !== 'boolean') {
      throw new Error(`"${name}" needs {"enabled": true|false} (or the file a "features" array)`);
    }
    if (simple.variant !== undefined && typeof simple.variant !== 'string') {
      throw new Error(`"${name}": variant is a name (a string)`);
    }
    return {
      name,
      project: 'default',
      enabled: simple.enabled,
      strategies: [{ name: 'default', parameters: {}, constraints: [] }],
      variants:
        simple.variant === undefined
          ? []
          : [{ name: simple.variant, weight: 1000, weightType: 'fix', stickiness: 'default' }],
    };
  });
  return { features };
}

/**
 * A listed token's scope, as Unleash Edge's offline mode reads it: Unleash's form
 * (`project:environment.secret`, `*` for all projects) gives its project and environment; any
 * other string is a token of every project in `default`.
 */
function scopeOf(secret: string, type: EdgeToken['type']): EdgeToken {
  const unleash = /^([^:\s]+):([^.\s]+)\.\S+$/.exec(secret);
  return unleash
    ? { token: secret, type, environment: unleash[2] as string, projects: [unleash[1] as string] }
    : { token: secret, type, environment: 'default', projects: ['*'] };
}

/**
 * Offline mode (Unleash Edge's `offline`): the replica's upstream is a file. The listed tokens
 * are the valid ones; the file is every environment's configuration, read again when asked
 * (EDGE_RELOAD_SECONDS) and taken only when it parses, so a half-written or broken file leaves
 * the last good one served (and `/health` says the source failed). Metrics go nowhere.
 */
export class BootstrapFile implements UpstreamApi {
  private readonly tokens = new Map<string, EdgeToken>();
  /**
   * One client token per environment of the listed tokens, of all projects: what the replica
   * fetches with. Their secrets are made for this process and never given out, so no SDK can
   * send one; SDKs use the listed tokens, which these cover.
   */
  readonly startupSecrets: string[];

  constructor(
    private readonly path: string,
    lists: { client: string[]; frontend: string[] },
  ) {
    for (const secret of lists.client) this.tokens.set(secret, scopeOf(secret, 'client'));
    for (const secret of lists.frontend) this.tokens.set(secret, scopeOf(secret, 'frontend'));
    const nonce = randomUUID();
    const environments = new Set([...this.tokens.values()].map((t) => t.environment));
    this.startupSecrets = [...environments].map((environment) => {
      const secret = `*:${environment}.offline-${nonce}`;
      this.startup.set(secret, { token: secret, type: 'client', environment, projects: ['*'] });
      return secret;
    });
  }

  private readonly startup = new Map<string, EdgeToken>();

  async validate(secrets: string[]): Promise<EdgeToken[]> {
    return secrets.flatMap((s) => {
      const token = this.tokens.get(s) ?? this.startup.get(s);
      return token ? [token] : [];
    });
  }

  /** The listed tokens are the valid ones: there is nobody else to ask. */
  async accepts(token: EdgeToken): Promise<boolean> {
    return this.tokens.has(token.token) || this.startup.has(token.token);
  }

  /** The file, unchanged (its hash as the ETag) or parsed; throws when it cannot be read or parsed. */
  async features(_token: string, etag: string | undefined): Promise<FetchResult> {
    const text = await readFile(this.path, 'utf8');
    const hash = `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
    if (hash === etag) return { status: 'unchanged' };
    try {
      return { status: 'changed', document: parseBootstrap(text), etag: hash };
    } catch (error) {
      throw new Error(`${this.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async bulkMetrics(): Promise<number> {
    return 202;
  }

  async stream(): Promise<void> {
    throw Object.assign(new Error('a bootstrap file has no stream'), { status: 404 });
  }
}
