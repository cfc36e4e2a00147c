import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  EnvironmentInstancesParams,
  EnvironmentInstancesSchema,
  OutdatedSdksSchema,
  ProjectApplicationsQuery,
  ProjectApplicationsSchema,
  ProjectParams,
} from './usage.schemas.js';
import * as service from './usage.service.js';

/** Which SDK instances run where, outdated SDKs, and the applications of a project. */
export const usageRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/metrics/instances/:appName/environment/:environment',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Metrics'],
          operationId: 'getApplicationEnvironmentInstances',
          summary: 'Get application environment instances (Last 24h)',
          description:
            'Instances of the application that SDK tokens of the environment saw in the last 24 hours, most recent first; none for an unknown application.',
          params: EnvironmentInstancesParams,
          response: { 200: EnvironmentInstancesSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) =>
        service.environmentInstances(deps, request.params.appName, request.params.environment),
    );

    app.get(
      '/api/admin/metrics/sdks/outdated',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Metrics'],
          operationId: 'getOutdatedSdks',
          summary: 'Get outdated SDKs',
          description:
            'SDK versions instances report that are below the minimum Unleash lists, each with the applications running it.',
          response: { 200: OutdatedSdksSchema, ...errorResponses(401, 403) },
        },
      },
      async () => service.outdatedSdks(deps),
    );

    app.get(
      '/api/admin/projects/:projectId/sdks/outdated',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getOutdatedProjectSdks',
          summary: 'Get outdated project SDKs',
          description:
            'Outdated SDK versions (as `getOutdatedSdks`) of the applications that reported flags of the project; 404 for an unknown project.',
          params: ProjectParams,
          response: { 200: OutdatedSdksSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => service.outdatedSdks(deps, request.params.projectId),
    );

    app.get(
      '/api/admin/projects/:projectId/applications',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getProjectApplications',
          summary: 'Get a list of all applications for a project.',
          description:
            'Applications that reported flags of the project, with their environments, instances and SDKs, filtered by `query`, sorted by name and paged; 404 for an unknown project.',
          params: ProjectParams,
          querystring: ProjectApplicationsQuery,
          response: { 200: ProjectApplicationsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.projectApplications(deps, request.params.projectId, request.query),
    );
  });
