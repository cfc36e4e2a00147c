import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { ApiToken } from './api-tokens.schemas.js';
import { createApiToken, deleteApiToken, view } from './api-tokens.service.js';
import { listProjectTokens, missingProjects } from './api-tokens.store.js';
import type { CreateProjectApiTokenInput } from './project-tokens.schemas.js';

/**
 * Project API tokens (Unleash's project-scoped tokens): SDK tokens whose only project is this one.
 * Issued, listed and deleted as every API token (the secret is shown once, only its hash is
 * stored, `api-token-created`/`-deleted`); the project permissions decide who may.
 */
export async function listProjectApiTokens(deps: Deps, projectId: string) {
  const db = deps.database.db;
  if ((await missingProjects(db, [projectId])).length > 0) {
    throw notFound(`Project "${projectId}" does not exist`);
  }
  return { tokens: (await listProjectTokens(db, projectId)).map((row) => view(row)) };
}

export function createProjectApiToken(
  deps: Deps,
  projectId: string,
  input: CreateProjectApiTokenInput,
  by: Principal,
): Promise<ApiToken> {
  return createApiToken(
    deps,
    {
      tokenName: input.tokenName,
      type: input.type,
      ...(input.environment !== undefined && { environment: input.environment }),
      ...(input.expiresAt !== undefined && { expiresAt: input.expiresAt }),
      projects: [projectId],
    },
    by,
  );
}

/** An unknown secret: 200, nothing changes (as Unleash); a token of another scope: 404. */
export const deleteProjectApiToken = (deps: Deps, projectId: string, secret: string, by: Principal) =>
  deleteApiToken(deps, secret, by, projectId);
