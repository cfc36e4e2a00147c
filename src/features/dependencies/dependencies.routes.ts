import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import type { Applier } from '../changes/index.js';
import { CreateDependencyBody, ProjectParams } from '../shapes/index.js';
import {
  ChildParams,
  DependenciesExistSchema,
  DependencyParams,
  ParentOptionsSchema,
  ParentParams,
  ParentVariantsSchema,
} from './dependencies.schemas.js';
import { dependenciesExist, listParentOptions, listParentVariants } from './dependencies.service.js';

const DEPENDENCIES = '/api/admin/projects/:projectId/features/:child/dependencies';
const Done = Type.Null({ description: 'Done; no body.' });
const done = (reply: FastifyReply) => reply.code(200).send();

/** Parent/child dependencies between flags of one project (one level). */
export const dependencyRoutes = (deps: Deps, changes: Applier, reads: ReadCache) =>
  routes(async (app) => {
    app.post(
      DEPENDENCIES,
      {
        config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'addFeatureDependency',
          summary: 'Add a feature dependency.',
          description:
            'Makes the child flag depend on a parent flag of the same project (or changes that dependency) and records `feature-dependency-added`. One level only: a parent cannot have parents and a child cannot be a parent (403 InvalidOperationError); `variants` only with `enabled` true (400).',
          params: ChildParams,
          body: CreateDependencyBody,
          response: { 200: Done, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const { projectId, child } = request.params;
        const change = {
          action: 'addDependency',
          project: projectId,
          feature: child,
          payload: request.body,
        } as const;
        await changes.apply(deps, [change], actor(request));
        return done(reply);
      },
    );

    app.delete(
      `${DEPENDENCIES}/:parent`,
      {
        config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'deleteFeatureDependency',
          summary: 'Deletes a feature dependency.',
          description:
            'Removes the dependency of the child on the parent and records `feature-dependency-removed`; a dependency that does not exist is left as is (200).',
          params: DependencyParams,
          response: { 200: Done, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, child, parent } = request.params;
        const change = {
          action: 'deleteDependency',
          project: projectId,
          feature: child,
          payload: { feature: parent },
        } as const;
        await changes.apply(deps, [change], actor(request));
        return done(reply);
      },
    );

    app.delete(
      DEPENDENCIES,
      {
        config: { permission: 'UPDATE_FEATURE_DEPENDENCY' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'deleteFeatureDependencies',
          summary: 'Deletes feature dependencies.',
          description:
            'Removes every dependency of the child and records `feature-dependencies-removed` when there was any.',
          params: ChildParams,
          response: { 200: Done, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, child } = request.params;
        await changes.apply(
          deps,
          [{ action: 'deleteDependency', project: projectId, feature: child }],
          actor(request),
        );
        return done(reply);
      },
    );

    app.get(
      '/api/admin/projects/:projectId/features/:child/parents',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'listParentOptions',
          summary: 'List parent options.',
          description:
            'Active flags of the project that may become parents of the child: not the child, without parents of their own; none when the child is a parent.',
          params: ChildParams,
          response: { 200: ParentOptionsSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => listParentOptions(deps, request.params.projectId, request.params.child),
    );

    app.get(
      '/api/admin/projects/:projectId/features/:parent/parent-variants',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'listParentVariantOptions',
          summary: 'List parent variant options.',
          description:
            "The parent flag's variant names (strategy variants and environment variants), which a dependency on it may require; none for a flag the project does not have.",
          params: ParentParams,
          response: { 200: ParentVariantsSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) =>
        listParentVariants(deps, reads.of(request), request.params.projectId, request.params.parent),
    );

    app.get(
      '/api/admin/projects/:projectId/dependencies',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Dependencies'],
          operationId: 'checkDependenciesExist',
          summary: 'Check dependencies exist.',
          description: 'Whether any flag of the project depends on another flag.',
          params: ProjectParams,
          response: { 200: DependenciesExistSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => dependenciesExist(deps, reads.of(request), request.params.projectId),
    );
  });
