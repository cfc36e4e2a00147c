import { type Principal, TOKEN_USER_ID } from '../platform/http/auth.js';
import { AppError } from '../platform/http/errors.js';
import { type TokenScope, tokenHash } from './edge.backup.js';
import type { UpstreamApi } from './edge.upstream-http.js';

/** An SDK token as the upstream's `/edge/validate` describes it. */
export interface EdgeToken {
  token: string;
  type: 'client' | 'frontend';
  environment: string;
  projects: string[];
}

/** An invalid token is asked about again after this (a valid one after `revalidateMs`). */
const NEGATIVE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;

/** Whether `outer` (a startup token) gives at least what `inner` asks: same environment, its projects. */
export function subsumes(
  outer: Pick<EdgeToken, 'environment' | 'projects'>,
  inner: Pick<EdgeToken, 'environment' | 'projects'>,
) {
  if (outer.environment !== inner.environment) return false;
  if (outer.projects.includes('*')) return true;
  return !inner.projects.includes('*') && inner.projects.every((p) => outer.projects.includes(p));
}

/**
 * Unleash Edge's `PRETRUSTED_TOKENS`: frontend tokens served without asking the upstream, each
 * either in Unleash's token form (`project:environment.secret`, `*` for all projects) or any
 * string followed by `@environment` (all projects). Throws on an entry of neither form.
 */
export function parsePretrusted(list: string): EdgeToken[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const unleash = /^([^:\s[\]]+):([^.\s]+)\.\S+$/.exec(entry);
      if (unleash) {
        return {
          token: entry,
          type: 'frontend' as const,
          environment: unleash[2] as string,
          projects: [unleash[1] as string],
        };
      }
      const at = entry.lastIndexOf('@');
      if (at > 0 && at < entry.length - 1) {
        return {
          token: entry.slice(0, at),
          type: 'frontend' as const,
          environment: entry.slice(at + 1),
          projects: ['*'],
        };
      }
      throw new Error(
        `PRETRUSTED_TOKENS: "${entry.slice(0, 20)}…" is neither an Unleash token (project:environment.secret) nor secret@environment`,
      );
    });
}

function toPrincipal(token: EdgeToken): Principal {
  const permission = token.type === 'client' ? 'CLIENT' : 'FRONTEND';
  return {
    name: 'edge',
    userId: TOKEN_USER_ID,
    kind: token.type === 'client' ? 'client-token' : 'frontend-token',
    grants: token.projects.map((project) => ({ permission, project, environment: token.environment })),
    scope: { projects: token.projects, environment: token.environment },
  };
}

/**
 * The tokens SDKs send to an edge replica, checked with the upstream (`POST /edge/validate` for
 * the scope, then the token itself on the upstream's SDK API: `Upstream.accepts`) and
 * remembered for `revalidateMs` (EDGE_TOKEN_REVALIDATION_SECONDS, a minute by default; Unleash
 * Edge's default is an hour): a token revoked upstream is refused within that. While the upstream is away a token known valid stays valid (the
 * replica keeps serving); an unknown one is refused. A valid token whose environment and
 * projects no startup token covers gets 403: the replica holds no configuration for it.
 */
export class EdgeTokens {
  /** Per secret: the upstream's answer, until when it holds, and its principal (made once). */
  private readonly cache = new Map<
    string,
    { token: EdgeToken | null; until: number; principal: Principal | undefined }
  >();

  /** The startup tokens once validated (none before: every SDK request is then refused). */
  startup: EdgeToken[] = [];
  /** Scopes from the backup (edge.backup.ts), by token hash: trusted while the upstream is away. */
  private backedUp = new Map<string, TokenScope>();

  /** Frontend tokens served without asking the upstream (PRETRUSTED_TOKENS), by secret. */
  private readonly pretrusted = new Map<string, { token: EdgeToken; until: number; principal: Principal }>();

  constructor(
    private readonly upstream: UpstreamApi,
    private readonly now: () => number = Date.now,
    pretrusted: EdgeToken[] = [],
    private readonly revalidateMs = 60_000,
  ) {
    for (const token of pretrusted) {
      this.pretrusted.set(token.token, {
        token,
        until: Number.POSITIVE_INFINITY,
        principal: toPrincipal(token),
      });
    }
  }

  /** Validates the startup tokens (throws when the upstream is away); only client tokens fetch. */
  async validateStartup(secrets: string[]): Promise<EdgeToken[]> {
    const valid = await this.upstream.validate(secrets);
    this.startup = valid.filter((t) => t.type === 'client');
    // The upstream answers: from now on it decides, not what a backup remembered.
    this.backedUp.clear();
    return this.startup;
  }

  private async lookup(secret: string): Promise<EdgeToken | null> {
    return (await this.entry(secret)).token;
  }

  private async entry(secret: string) {
    const trusted = this.pretrusted.get(secret);
    if (trusted) return trusted;
    const hit = this.cache.get(secret);
    if (hit && hit.until > this.now()) return hit;
    let token: EdgeToken | null;
    try {
      [token = null] = await this.upstream.validate([secret]);
      // `/edge/validate` gives the scope; the SDK API says whether the token still works.
      if (token && !(await this.upstream.accepts(token))) token = null;
    } catch {
      // The upstream is away: what was known stays as it was, so does what the backup knew; a
      // token never seen cannot be checked, which is not the token's fault: 503, and the SDK
      // tries again.
      if (hit) return hit;
      const scope = this.backedUp.get(tokenHash(secret));
      if (scope) {
        const token = { token: secret, ...scope };
        const entry = { token, until: this.now() + NEGATIVE_TTL_MS, principal: toPrincipal(token) };
        this.cache.set(secret, entry);
        return entry;
      }
      throw new AppError(
        'ServiceUnavailableError',
        'This edge replica cannot check the token: its upstream does not answer.',
      );
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    const entry = {
      token,
      until: this.now() + (token ? this.revalidateMs : NEGATIVE_TTL_MS),
      principal: token ? toPrincipal(token) : undefined,
    };
    this.cache.set(secret, entry);
    return entry;
  }

  /** The principal of an SDK token, or null when it is not valid upstream. */
  async resolve(secret: string): Promise<Principal | null> {
    const { token, principal } = await this.entry(secret);
    if (!token) return null;
    if (!this.startup.some((s) => subsumes(s, token))) {
      throw new AppError(
        'NoAccessError',
        `This edge replica does not serve the "${token.environment}" environment for this token's projects: start it with a client token (UPSTREAM_TOKENS) that covers them.`,
      );
    }
    return principal ?? null;
  }

  /**
   * The principal `resolve` would give, when it is known at once: a token the upstream said was
   * valid less than `revalidateMs` ago, which a startup token covers. Else undefined (nothing is
   * asked of the upstream); the caller then takes `resolve`'s way. Each token's principal is one
   * object while it is cached, so per-scope values keyed by it are made once.
   */
  known(secret: string): Principal | undefined {
    const hit = this.pretrusted.get(secret) ?? this.cache.get(secret);
    if (!hit?.token || hit.until <= this.now()) return undefined;
    const { token } = hit;
    return this.startup.some((s) => subsumes(s, token)) ? hit.principal : undefined;
  }

  /**
   * For a replica chained behind this one (`POST /edge/validate`): the tokens of the list that are
   * valid upstream and that this replica serves (a startup token covers them), with their scope.
   */
  async servable(secrets: string[]): Promise<EdgeToken[]> {
    const found: EdgeToken[] = [];
    const unknown: string[] = [];
    for (const secret of new Set(secrets)) {
      const hit = this.pretrusted.get(secret) ?? this.cache.get(secret);
      if (hit && hit.until > this.now()) {
        if (hit.token) found.push(hit.token);
      } else unknown.push(secret);
    }
    // The rest in one upstream call (a public route: a list of strings must not become as many
    // calls). Only valid ones are remembered, so a flood of strings cannot push good tokens out.
    if (unknown.length > 0) {
      let valid: EdgeToken[];
      try {
        valid = await this.upstream.validate(unknown);
      } catch {
        throw new AppError(
          'ServiceUnavailableError',
          'This edge replica cannot check the tokens: its upstream does not answer.',
        );
      }
      for (const token of valid) {
        if (this.cache.size >= CACHE_MAX) this.cache.clear();
        this.cache.set(token.token, {
          token,
          until: this.now() + this.revalidateMs,
          principal: toPrincipal(token),
        });
        found.push(token);
      }
    }
    return found.filter((token) => this.startup.some((s) => subsumes(s, token)));
  }

  /**
   * What the replica knows of SDK tokens, for `/internal-backstage/tokens`: those valid (asked of
   * the upstream, or pretrusted) and how many strings it was sent that are not.
   */
  knownTokens(): { valid: (EdgeToken & { status: 'Validated' | 'Trusted' })[]; invalid: number } {
    const valid: (EdgeToken & { status: 'Validated' | 'Trusted' })[] = [];
    let invalid = 0;
    for (const { token } of this.pretrusted.values()) valid.push({ ...token, status: 'Trusted' });
    for (const { token } of this.cache.values()) {
      if (token) valid.push({ ...token, status: 'Validated' });
      else invalid += 1;
    }
    return { valid, invalid };
  }

  /** Whether the secret is one of the startup tokens (UPSTREAM_TOKENS). */
  isStartup(secret: string): boolean {
    return this.startup.some((t) => t.token === secret);
  }

  /** The scope of every token known valid, by hash, for the backup. */
  scopes(): Record<string, TokenScope> {
    const known = [...this.startup, ...[...this.cache.values()].flatMap((e) => (e.token ? [e.token] : []))];
    const out: Record<string, TokenScope> = Object.fromEntries(this.backedUp);
    for (const { token, ...scope } of known) out[tokenHash(token)] = scope;
    return out;
  }

  /**
   * Restarted while the upstream is away: trusts the backup's scopes until the upstream answers,
   * and takes as startup tokens those of `secrets` it knew as client tokens. Answers them.
   */
  restore(secrets: string[], scopes: Record<string, TokenScope>): EdgeToken[] {
    const startup = secrets.flatMap((secret) => {
      const scope = scopes[tokenHash(secret)];
      return scope?.type === 'client' ? [{ token: secret, ...scope }] : [];
    });
    if (startup.length === 0) return startup;
    this.backedUp = new Map(Object.entries(scopes));
    this.startup = startup;
    return startup;
  }

  /** For open streams: whether the token is still valid upstream (true while it cannot tell). */
  async stillValid(secret: string): Promise<boolean> {
    return this.lookup(secret).then(
      (token) => token !== null,
      () => true,
    );
  }
}
