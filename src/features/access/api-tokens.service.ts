import { randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { displayPrefix, forgetCachedToken, hashSecret } from './api-tokens.auth.js';
import type { ApiToken, CreateApiTokenInput, UpdateApiTokenInput } from './api-tokens.schemas.js';
import {
  deleteToken,
  environmentExists,
  findListedToken,
  insertToken,
  type ListedToken,
  listTokens,
  missingProjects,
  setTokenExpiry,
} from './api-tokens.store.js';

type TokenType = 'admin' | 'client' | 'frontend';

/** `project` as Unleash shows it: the one project, `*` for all, `[]` for several. */
const projectLabel = (projects: string[]) => (projects.length === 1 ? projects[0]! : '[]');

export function view(row: ListedToken, secret?: string): ApiToken {
  return {
    secret: secret ?? row.display_prefix,
    tokenName: row.token_name,
    type: row.type,
    environment: row.environment ?? '*',
    project: projectLabel(row.projects),
    projects: row.projects,
    expiresAt: row.expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    seenAt: row.seen_at?.toISOString() ?? null,
    alias: row.alias,
    secure: secret === undefined,
  };
}

/** A project API token: an SDK token scoped to exactly this one project. */
export const isProjectToken = (row: ListedToken, projectId: string) =>
  row.type !== 'admin' && row.projects.length === 1 && row.projects[0] === projectId;

/** As Unleash: a token's events belong to its project when it has exactly one. */
const eventProject = (projects: string[]) =>
  projects.length === 1 && projects[0] !== '*' ? projects[0] : undefined;

/** What events record of a token: everything but the secret and its prefix. */
function eventData(token: ApiToken) {
  const { secret: _secret, secure: _secure, ...data } = token;
  return data;
}

export async function listApiTokens(deps: Deps, tokenName?: string) {
  const rows = await listTokens(deps.database.db, tokenName);
  return { tokens: rows.map((row) => view(row)) };
}

interface Scope {
  type: TokenType;
  environment: string;
  projects: string[];
}

/** Checks the body's scope: type alias, environment and projects as Unleash combines them. */
function scopeOf(input: CreateApiTokenInput): Scope {
  const lower = input.type.toLowerCase();
  const type: TokenType = lower === 'backend' ? 'client' : (lower as TokenType);
  const projects = [...new Set(input.projects ?? (input.project !== undefined ? [input.project] : ['*']))];
  const path = input.projects ? '/body/projects' : '/body/project';
  if (projects.includes('*') && projects.length > 1) {
    throw invalidField(path, 'A token for all projects (`*`) cannot list other projects too.');
  }
  if (type === 'admin') {
    if (input.environment !== undefined && input.environment !== '*') {
      throw invalidField(
        '/body/environment',
        'Admin tokens cover every environment: use `*` or leave it out.',
      );
    }
    if (projects[0] !== '*')
      throw invalidField(path, 'Admin tokens cover every project: use `*` or leave it out.');
    return { type, environment: '*', projects };
  }
  const environment = input.environment ?? 'development';
  if (environment === '*') {
    throw invalidField(
      '/body/environment',
      `A ${type} token is for one environment; \`*\` is only for admin tokens.`,
    );
  }
  return { type, environment, projects };
}

/**
 * Creates a token and returns it with its secret, the only time the secret is shown; only its
 * SHA-256 hash is stored. Format `<project>:<environment>.<56 hex>` (`*` for all projects, `[]`
 * for several; `*:*.` for admin). Records `api-token-created` without the secret.
 */
export async function createApiToken(
  deps: Deps,
  input: CreateApiTokenInput,
  by: Principal,
): Promise<ApiToken> {
  const tokenName = input.tokenName ?? input.username;
  if (!tokenName) throw invalidField('/body/tokenName', 'tokenName is required.');
  const scope = scopeOf(input);
  const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
  if (expiresAt && expiresAt.getTime() <= deps.now().getTime()) {
    throw invalidField('/body/expiresAt', 'expiresAt must be in the future.');
  }
  const prefix = scope.projects.length === 1 ? scope.projects[0] : '[]';
  const secret = `${prefix}:${scope.environment}.${randomBytes(28).toString('hex')}`;
  return transaction(deps.database.db, async (tx) => {
    if (scope.environment !== '*' && !(await environmentExists(tx, scope.environment))) {
      throw notFound(`Environment "${scope.environment}" does not exist`);
    }
    const missing = await missingProjects(
      tx,
      scope.projects.filter((p) => p !== '*'),
    );
    if (missing.length > 0) throw notFound(`Project "${missing[0]}" does not exist`);
    const createdAt = deps.now();
    await insertToken(tx, {
      secretHash: hashSecret(secret),
      tokenName,
      type: scope.type,
      environment: scope.environment,
      projects: scope.projects,
      displayPrefix: displayPrefix(secret),
      createdBy: by.name,
      expiresAt,
    });
    const token = view(
      {
        secret_hash: '',
        token_name: tokenName,
        type: scope.type,
        environment: scope.environment,
        projects: scope.projects,
        display_prefix: displayPrefix(secret),
        alias: null,
        expires_at: expiresAt,
        seen_at: null,
        created_at: createdAt,
      },
      secret,
    );
    await appendEvent(tx, {
      type: 'api-token-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      project: eventProject(scope.projects),
      environment: scope.environment,
      data: eventData(token),
    });
    return token;
  });
}

/**
 * Deletes the token whose secret is given. An unknown secret answers 200 and changes nothing, as
 * in Unleash. This process stops accepting the token at once; other instances within 5 s.
 */
export async function deleteApiToken(deps: Deps, secret: string, by: Principal, onlyProject?: string) {
  const hash = hashSecret(secret);
  await transaction(deps.database.db, async (tx) => {
    // Through a project's route, only that project's own tokens (see isProjectToken) may go.
    if (onlyProject !== undefined) {
      const found = await findListedToken(tx, hash);
      if (found && !isProjectToken(found, onlyProject)) {
        throw notFound(`The project "${onlyProject}" has no API token with that secret.`);
      }
    }
    const row = await deleteToken(tx, hash);
    if (!row) return;
    await appendEvent(tx, {
      type: 'api-token-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      project: eventProject(row.projects),
      environment: row.environment ?? undefined,
      preData: eventData(view(row)),
    });
  });
  forgetCachedToken(hash);
}

/** Changes the expiry of the token whose secret is given; unknown secret: 200, nothing changes. */
export async function updateApiToken(deps: Deps, secret: string, input: UpdateApiTokenInput, by: Principal) {
  const hash = hashSecret(secret);
  await transaction(deps.database.db, async (tx) => {
    const before = await findListedToken(tx, hash);
    if (!before) return;
    const after = await setTokenExpiry(tx, hash, new Date(input.expiresAt));
    await appendEvent(tx, {
      type: 'api-token-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      environment: before.environment ?? undefined,
      data: after && eventData(view(after)),
      preData: eventData(view(before)),
    });
  });
  forgetCachedToken(hash);
}
