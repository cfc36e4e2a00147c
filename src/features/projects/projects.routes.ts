import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendSerialized } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { CreateStrategyBody } from '../strategies/index.js';
import { accessRoutes } from './access.routes.js';
import { healthHistoryRoutes } from './health-history.routes.js';
import { insightsRoutes } from './insights.routes.js';
import {
  getAllFlagCreators,
  getCurrentOverview,
  getFlagCreators,
  getHealthReportJson,
  getProjectOverviewJson,
  getProjectStatus,
  listProjects,
} from './overview.service.js';
import {
  addEnvironmentToProject,
  removeEnvironmentFromProject,
  updateDefaultStrategy,
} from './project-environments.service.js';
import {
  AllFlagCreatorsSchema,
  CreateProjectBody,
  DefaultStrategySchema,
  FlagCreatorsQuery,
  FlagCreatorsSchema,
  HealthReportSchema,
  OverviewQuery,
  ProjectCreatedSchema,
  ProjectEnvironmentBody,
  ProjectEnvironmentParams,
  ProjectIdParams,
  ProjectListSchema,
  ProjectOverviewSchema,
  ProjectOverviewV8Schema,
  ProjectSettingsBody,
  ProjectStatusSchema,
  UpdateProjectBody,
} from './projects.schemas.js';
import {
  createProject,
  deleteProject,
  setFavorite,
  updateProject,
  updateProjectSettings,
} from './projects.service.js';

const Empty = Type.Null({ description: 'Done; the response has no body.' });
const tags = ['Projects'];

export const projectRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    await app.register(accessRoutes(deps));
    await app.register(insightsRoutes(deps, reads));
    await app.register(healthHistoryRoutes(deps));
    app.get(
      '/api/admin/projects',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjects',
          summary: 'Get a list of all projects',
          description:
            'Every non-archived project by name, with flag count, members and technical debt computed live.',
          response: { 200: ProjectListSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => listProjects(deps, reads.of(request), actor(request)),
    );

    app.post(
      '/api/admin/projects',
      {
        config: { permission: 'CREATE_PROJECT' },
        schema: {
          tags,
          operationId: 'createProject',
          summary: 'Create a project',
          description:
            'Creates a project with every enabled environment (or the `environments` listed) and records `project-created`. Without `id`, one is derived from the name.',
          body: CreateProjectBody,
          response: { 201: ProjectCreatedSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return createProject(deps, request.body, actor(request));
      },
    );

    app.get(
      '/api/admin/projects/:projectId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getDeprecatedProjectOverview',
          summary: 'Get an overview of a project',
          description:
            'The project with its environments, its non-archived flags (archived ones with `archived=true`), health and 30-day statistics, computed live.',
          deprecated: true,
          params: ProjectIdParams,
          querystring: OverviewQuery,
          response: { 200: ProjectOverviewSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        const json = await getProjectOverviewJson(
          deps,
          reads.of(request),
          request.params.projectId,
          request.query.archived ?? false,
          actor(request),
        );
        return sendSerialized(reply, json);
      },
    );

    app.get(
      '/api/admin/projects/:projectId/health-report',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectHealthReport',
          summary: 'Get the health report of a project',
          description:
            'The project overview of its non-archived flags plus `technicalDebt`, `staleCount`, `activeCount` and `potentiallyStaleCount`, all computed when asked: a flag marked stale counts at once.',
          params: ProjectIdParams,
          response: { 200: HealthReportSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) =>
        sendSerialized(
          reply,
          await getHealthReportJson(deps, reads.of(request), request.params.projectId, actor(request)),
        ),
    );

    app.get(
      '/api/admin/projects/:projectId/overview',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectOverview',
          summary: 'Get an overview of a project',
          description:
            'Settings, environments, health and technical debt, 30-day statistics, flag counts per type and onboarding, without the flags themselves.',
          params: ProjectIdParams,
          response: { 200: ProjectOverviewV8Schema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) =>
        getCurrentOverview(deps, reads.of(request), request.params.projectId, actor(request)),
    );

    app.get(
      '/api/admin/projects/:projectId/status',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectStatus',
          summary: 'Get the status of a project',
          description:
            "Events per day over the last year, the project's own tokens, members and segments, health and technical debt, and per lifecycle stage the flags in it and the mean days spent there.",
          params: ProjectIdParams,
          response: { 200: ProjectStatusSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getProjectStatus(deps, reads.of(request), request.params.projectId),
    );

    app.get(
      '/api/admin/flag-creators',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getFlagCreators',
          summary: 'Get the creators of flags',
          description:
            "The users who created active flags in any project, for the flags overview's Created by filter; `q` keeps the names that contain it.",
          querystring: FlagCreatorsQuery,
          response: { 200: AllFlagCreatorsSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => getAllFlagCreators(deps, request.query.q),
    );

    app.get(
      '/api/admin/projects/:projectId/flag-creators',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectFlagCreators',
          summary: "Get the creators of a project's flags",
          description: "The users who created the project's flags (archived ones too), for search filters.",
          params: ProjectIdParams,
          response: { 200: FlagCreatorsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getFlagCreators(deps, reads.of(request), request.params.projectId),
    );

    app.put(
      '/api/admin/projects/:projectId',
      {
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId: 'updateProject',
          summary: 'Update a project',
          description:
            'Changes the properties sent (absent keeps, null clears) and records `project-updated` with data and preData.',
          params: ProjectIdParams,
          body: UpdateProjectBody,
          response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await updateProject(deps, request.params.projectId, request.body, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.put(
      '/api/admin/projects/:projectId/settings',
      {
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId: 'updateProjectEnterpriseSettings',
          summary: 'Update project settings',
          description:
            'Changes the settings sent (mode, defaultStickiness, featureLimit, featureNaming; absent keeps, null clears) and records `project-updated`.',
          params: ProjectIdParams,
          body: ProjectSettingsBody,
          response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await updateProjectSettings(deps, request.params.projectId, request.body, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.delete(
      '/api/admin/projects/:projectId',
      {
        config: { permission: 'DELETE_PROJECT' },
        schema: {
          tags,
          operationId: 'deleteProject',
          summary: 'Delete a project',
          description:
            'Deletes a project without active flags; its archived flags are deleted permanently with it. `default` cannot be deleted (403 InvalidOperationError), nor a project with active flags.',
          params: ProjectIdParams,
          response: { 200: Empty, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await deleteProject(deps, request.params.projectId, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.post(
      '/api/admin/projects/:projectId/environments',
      {
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId: 'addEnvironmentToProject',
          summary: 'Add an environment to a project',
          description:
            'Enables the environment in the project; every flag of the project gets it, disabled. Records `project-environment-added`.',
          params: ProjectIdParams,
          body: ProjectEnvironmentBody,
          response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        await addEnvironmentToProject(deps, request.params.projectId, request.body, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.delete(
      '/api/admin/projects/:projectId/environments/:environment',
      {
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId: 'removeEnvironmentFromProject',
          summary: 'Remove an environment from a project',
          description:
            "Disables the environment in the project and deletes the flags' configuration there. A project keeps at least one environment. Records `project-environment-removed`.",
          params: ProjectEnvironmentParams,
          response: { 200: Empty, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, environment } = request.params;
        await removeEnvironmentFromProject(deps, projectId, environment, actor(request));
        return reply.code(200).send(null);
      },
    );

    // Unleash's method is POST; PUT is accepted too, as the same operation.
    const defaultStrategy = (operationId: string) =>
      ({
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId,
          summary: 'Set the default strategy of a project environment',
          description:
            'The strategy that enabling a flag without strategies adds in this environment. Records `default-strategy-updated`.',
          params: ProjectEnvironmentParams,
          body: CreateStrategyBody,
          response: { 200: DefaultStrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      }) as const;
    const DEFAULT_STRATEGY = '/api/admin/projects/:projectId/environments/:environment/default-strategy';
    app.post(DEFAULT_STRATEGY, defaultStrategy('addDefaultStrategyToProjectEnvironment'), async (request) => {
      const { projectId, environment } = request.params;
      return updateDefaultStrategy(deps, projectId, environment, request.body, actor(request));
    });
    app.put(
      DEFAULT_STRATEGY,
      defaultStrategy('updateDefaultStrategyOfProjectEnvironment'),
      async (request) => {
        const { projectId, environment } = request.params;
        return updateDefaultStrategy(deps, projectId, environment, request.body, actor(request));
      },
    );

    const favoriteOptions = (operationId: string, summary: string, description: string) =>
      ({
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId,
          summary,
          description: `${description} API tokens are not users: for them this changes nothing.`,
          params: ProjectIdParams,
          // 403: a signed-in change from another site (same-origin.ts).
          response: { 200: Empty, ...errorResponses(401, 403, 404) },
        },
      }) as const;
    const FAVORITES = '/api/admin/projects/:projectId/favorites';
    app.post(
      FAVORITES,
      favoriteOptions(
        'addFavoriteProject',
        'Add project to favorites',
        'Favorites the project for the calling user (`project-favorited`).',
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, true, actor(request));
        return reply.code(200).send(null);
      },
    );
    app.delete(
      FAVORITES,
      favoriteOptions(
        'removeFavoriteProject',
        'Remove project from favorites',
        'Unfavorites the project for the calling user (`project-unfavorited`).',
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, false, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
