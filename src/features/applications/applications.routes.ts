import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import {
  ApplicationDetailsSchema,
  ApplicationListQuery,
  ApplicationListSchema,
  ApplicationOverviewSchema,
  AppParams,
  EditApplicationBody,
  FeatureMetricsSchema,
  FeatureParams,
  FeatureUsageSchema,
  UnknownFlagsSchema,
} from './applications.schemas.js';
import * as service from './applications.service.js';
import { usageRoutes } from './usage.routes.js';

export const applicationRoutes = (deps: Deps) =>
  routes(async (app) => {
    const tags = ['Metrics'];

    app.get(
      '/api/admin/metrics/applications',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getApplications',
          summary: 'List applications',
          description:
            'Applications that registered through an SDK (or were created here), filtered by `query`, sorted and paged, with the projects and environments they reported flags of.',
          querystring: ApplicationListQuery,
          response: { 200: ApplicationListSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => service.listApplications(deps, request.query),
    );

    app.get(
      '/api/admin/metrics/applications/:appName',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getApplication',
          summary: 'Get an application',
          description: 'One application with its strategies, instances and the flags it reported.',
          params: AppParams,
          response: { 200: ApplicationDetailsSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => service.getApplication(deps, request.params.appName),
    );

    app.post(
      '/api/admin/metrics/applications/:appName',
      {
        config: { permission: 'UPDATE_APPLICATION' },
        schema: {
          tags,
          operationId: 'createApplication',
          summary: 'Create or edit an application',
          description:
            'Sets the description, url, color and icon given (absent keeps), creating the application when unknown; records `application-created`. Needs UPDATE_APPLICATION (the Editor has it), as in Unleash.',
          params: AppParams,
          body: EditApplicationBody,
          response: { 202: NoBody('Accepted.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.editApplication(deps, request.params.appName, request.body, actor(request));
        return reply.code(202).send(null);
      },
    );

    app.delete(
      '/api/admin/metrics/applications/:appName',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteApplication',
          summary: 'Delete an application',
          description:
            'Deletes the application and its instances (its flag metrics stay) and records `application-deleted`; 404 when unknown.',
          params: AppParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteApplication(deps, request.params.appName, actor(request));
        return reply.send(null);
      },
    );

    app.get(
      '/api/admin/metrics/applications/:appName/overview',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getApplicationOverview',
          summary: 'Application overview',
          description:
            'Projects, flag count and, per environment, instances, SDKs and issues (unknown flags, outdated SDKs) of an application; 404 for one never seen.',
          params: AppParams,
          response: { 200: ApplicationOverviewSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => service.applicationOverview(deps, request.params.appName),
    );

    app.get(
      '/api/admin/metrics/unknown-flags',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getUnknownFlags',
          summary: 'Unknown flags',
          description: 'Flag names SDKs reported in the last 48 hours that no flag has.',
          response: { 200: UnknownFlagsSchema, ...errorResponses(401, 403) },
        },
      },
      async () => service.unknownFlags(deps),
    );

    app.get(
      '/api/admin/client-metrics/features/:name',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getFeatureUsageSummary',
          summary: 'Flag usage summary',
          description:
            'Yes/no/variant counts of the flag: hourly rows of the last two hours, totals per environment over 48 hours, and the applications that reported it.',
          params: FeatureParams,
          response: { 200: FeatureUsageSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => service.featureUsage(deps, request.params.name),
    );

    app.get(
      '/api/admin/client-metrics/features/:name/raw',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getRawFeatureMetrics',
          summary: 'Raw flag metrics',
          description:
            'Hourly yes/no/variant counts of the flag per application and environment, last 48 hours.',
          params: FeatureParams,
          response: { 200: FeatureMetricsSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => service.rawFeatureMetrics(deps, request.params.name),
    );

    // Instances, outdated SDKs and project applications: the same tables, another use case.
    await app.register(usageRoutes(deps));
  });
