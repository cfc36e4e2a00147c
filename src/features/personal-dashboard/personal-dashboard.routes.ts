import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  DashboardProjectParams,
  PersonalDashboardSchema,
  PersonalProjectSchema,
} from './personal-dashboard.schemas.js';
import { getPersonalDashboard, getPersonalProject } from './personal-dashboard.service.js';

export const personalDashboardRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/personal-dashboard',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getPersonalDashboard',
          summary: 'Get personal dashboard',
          description:
            "The caller's flags (created or favorited), the projects where they hold a role with those projects' owners, and the instance's admins. API tokens have no flags or projects of their own.",
          response: { 200: PersonalDashboardSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => getPersonalDashboard(deps, actor(request)),
    );

    app.get(
      '/api/admin/personal-dashboard/:projectId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getPersonalDashboardProjectDetails',
          summary: 'Get personal project details',
          description:
            "One project for the caller: flag counts and health, onboarding, its 10 newest events, its owners and the caller's roles in it.",
          params: DashboardProjectParams,
          response: { 200: PersonalProjectSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getPersonalProject(deps, request.params.projectId, actor(request)),
    );
  });
