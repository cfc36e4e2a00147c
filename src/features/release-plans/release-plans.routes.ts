import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { type Applier, type Change, type ChangeOf, changeTarget } from '../changes/index.js';
import { PlanSchema, SafeguardBody, SafeguardSchema } from '../shapes/index.js';
import {
  AddPlanBody,
  FlagEnvironmentParams,
  MilestoneParams,
  PlanListSchema,
  PlanParams,
  ProgressionBody,
  ProgressionParams,
  SafeguardParams,
  TemplateBody,
  TemplateListSchema,
  TemplateParams,
  TemplateSchema,
} from './release-plans.schemas.js';
import {
  changeTemplate,
  createTemplate,
  getPlan,
  getPlans,
  getTemplate,
  getTemplates,
  pauseProgression,
  retireTemplate,
} from './release-plans.service.js';

const tags = ['Release plans'];
const TEMPLATES = '/api/admin/release-plan-templates';
const ENV = '/api/admin/projects/:projectId/features/:featureName/environments/:environment';
const reads = errorResponses(400, 401, 403, 404);
const writes = errorResponses(400, 401, 403, 404, 409, 413, 415);

type EnvTarget = ReturnType<typeof changeTarget>;
type EnvPath = { projectId: string; featureName: string; environment: string };
const where = (request: FastifyRequest) => changeTarget(request.params as EnvPath);

/** Release plan templates (Admins) and the plans on flag environments, at Unleash's paths. */
export const releasePlanRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    /** A plan write is one change of the flag environment in the path, through the one applier. */
    const apply = async <C extends Change>(request: FastifyRequest, change: Omit<C, keyof EnvTarget>) => {
      const [result] = await changes.apply(deps, [{ ...where(request), ...change } as C], actor(request));
      return result;
    };

    app.get(
      TEMPLATES,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getReleasePlanTemplates',
          summary: 'Release plan templates',
          description: 'The templates not archived, by name, with their milestones.',
          response: { 200: TemplateListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getTemplates(deps),
    );

    app.post(
      TEMPLATES,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createReleasePlanTemplate',
          summary: 'Create a release plan template',
          description:
            'Creates a template of ordered milestones, each strategy checked as a new strategy is; records `release-plan-template-created`.',
          body: TemplateBody,
          response: { 201: TemplateSchema, ...writes },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createTemplate(deps, request.body, actor(request))),
    );

    app.get(
      `${TEMPLATES}/:templateId`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getReleasePlanTemplate',
          summary: 'A release plan template',
          description: 'The template with its milestones (archived ones too).',
          params: TemplateParams,
          response: { 200: TemplateSchema, ...reads },
        },
      },
      async (request) => getTemplate(deps, request.params.templateId),
    );

    app.put(
      `${TEMPLATES}/:templateId`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateReleasePlanTemplate',
          summary: 'Change a release plan template',
          description:
            'Replaces its name, description and milestones (plans made from it keep theirs); records `release-plan-template-updated`.',
          params: TemplateParams,
          body: TemplateBody,
          response: { 200: TemplateSchema, ...writes },
        },
      },
      async (request) => changeTemplate(deps, request.params.templateId, request.body, actor(request)),
    );

    app.post(
      `${TEMPLATES}/archive/:templateId`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'archiveReleasePlanTemplate',
          summary: 'Archive a release plan template',
          description:
            'It can no longer be applied; plans made from it stay. Records `release-plan-template-archived`.',
          params: TemplateParams,
          response: { 200: NoBody('Archived.'), ...reads },
        },
      },
      async (request, reply) => {
        await retireTemplate(deps, request.params.templateId, 'archive', actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.delete(
      `${TEMPLATES}/:templateId`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteReleasePlanTemplate',
          summary: 'Delete a release plan template',
          description:
            'Plans made from it stay, with their milestones. Records `release-plan-template-deleted`.',
          params: TemplateParams,
          response: { 200: NoBody('Deleted.'), ...reads },
        },
      },
      async (request, reply) => {
        await retireTemplate(deps, request.params.templateId, 'delete', actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      `${ENV}/release-plans`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getReleasePlans',
          summary: 'A flag environment’s release plans',
          description: 'The plan on the flag environment (at most one), with its milestones.',
          params: FlagEnvironmentParams,
          response: { 200: PlanListSchema, ...reads },
        },
      },
      async (request) => getPlans(deps, where(request)),
    );

    app.post(
      `${ENV}/release-plans`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'addReleasePlan',
          summary: 'Apply a template to a flag environment',
          description:
            'A plan with copies of the template’s milestones, none started; 409 when the flag environment has one. Records `release-plan-added`.',
          params: FlagEnvironmentParams,
          body: AddPlanBody,
          response: { 201: PlanSchema, ...writes },
        },
      },
      async (request, reply) =>
        reply.code(201).send(
          await apply<ChangeOf<'addReleasePlan'>>(request, {
            action: 'addReleasePlan',
            payload: { templateId: request.body.templateId },
          }),
        ),
    );

    app.get(
      `${ENV}/release-plans/:planId`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getReleasePlan',
          summary: 'A release plan',
          description: 'The plan with its milestones.',
          params: PlanParams,
          response: { 200: PlanSchema, ...reads },
        },
      },
      async (request) => getPlan(deps, where(request), request.params.planId),
    );

    app.delete(
      `${ENV}/release-plans/:planId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'deleteReleasePlan',
          summary: 'Remove a release plan',
          description:
            'Removes the plan and the strategies it put on the flag environment (as strategy deletions); records `release-plan-removed`.',
          params: PlanParams,
          response: { 200: NoBody('Removed.'), ...reads },
        },
      },
      async (request, reply) => {
        await apply<ChangeOf<'deleteReleasePlan'>>(request, {
          action: 'deleteReleasePlan',
          payload: { planId: request.params.planId },
        });
        return sendEmpty(reply, 200);
      },
    );

    app.post(
      `${ENV}/release-plans/:planId/milestones/:milestoneId/start`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'startReleasePlanMilestone',
          summary: 'Start a milestone',
          description:
            'Replaces the plan’s strategies on the flag environment with the milestone’s, in one change list; records the strategy events and `release-plan-milestone-started`.',
          params: MilestoneParams,
          response: { 200: NoBody('Started.'), ...reads },
        },
      },
      async (request, reply) => {
        await apply<ChangeOf<'startMilestone'>>(request, {
          action: 'startMilestone',
          payload: { planId: request.params.planId, milestoneId: request.params.milestoneId },
        });
        return sendEmpty(reply, 200);
      },
    );

    app.put(
      `${ENV}/progressions/:sourceMilestoneId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'changeMilestoneProgression',
          summary: 'Set when a milestone moves on',
          description:
            'After `intervalMinutes` from its start, the milestone’s plan starts `targetMilestone` by itself; records `milestone-progression-created` or `-updated`.',
          params: ProgressionParams,
          body: ProgressionBody,
          response: { 200: NoBody('Set.'), ...writes },
        },
      },
      async (request, reply) => {
        await apply<ChangeOf<'changeMilestoneProgression'>>(request, {
          action: 'changeMilestoneProgression',
          payload: { sourceMilestone: request.params.sourceMilestoneId, ...request.body },
        });
        return sendEmpty(reply, 200);
      },
    );

    app.delete(
      `${ENV}/progressions/:sourceMilestoneId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'deleteMilestoneProgression',
          summary: 'Remove a milestone’s progression',
          description: 'It no longer moves on by itself; records `milestone-progression-deleted`.',
          params: ProgressionParams,
          response: { 200: NoBody('Removed.'), ...reads },
        },
      },
      async (request, reply) => {
        await apply<ChangeOf<'deleteMilestoneProgression'>>(request, {
          action: 'deleteMilestoneProgression',
          payload: { sourceMilestone: request.params.sourceMilestoneId },
        });
        return sendEmpty(reply, 200);
      },
    );

    app.put(
      `${ENV}/release-plans/:planId/safeguards`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'changeReleasePlanSafeguard',
          summary: 'Set a release plan’s safeguard',
          description:
            'While the condition holds on the flag’s own metrics in this environment, the progression job pauses the plan, saying why (one safeguard per plan: this replaces it). Records `safeguard-changed`.',
          params: PlanParams,
          body: SafeguardBody,
          response: { 200: SafeguardSchema, ...writes },
        },
      },
      async (request) =>
        apply<ChangeOf<'changeReleasePlanSafeguard'>>(request, {
          action: 'changeReleasePlanSafeguard',
          payload: { planId: request.params.planId, safeguard: request.body },
        }),
    );

    app.delete(
      `${ENV}/release-plans/:planId/safeguards/:safeguardId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'deleteReleasePlanSafeguard',
          summary: 'Remove a release plan’s safeguard',
          description: 'Records `safeguard-deleted`.',
          params: SafeguardParams,
          response: { 200: NoBody('Removed.'), ...reads },
        },
      },
      async (request, reply) => {
        await apply<ChangeOf<'deleteReleasePlanSafeguard'>>(request, {
          action: 'deleteReleasePlanSafeguard',
          payload: { planId: request.params.planId, safeguardId: request.params.safeguardId },
        });
        return sendEmpty(reply, 200);
      },
    );

    for (const state of ['pause', 'resume'] as const) {
      app.post(
        `${ENV}/progressions/:planId/${state}`,
        {
          config: { permission: 'UPDATE_FEATURE_STRATEGY' },
          schema: {
            tags,
            operationId: state === 'pause' ? 'pauseMilestoneProgressions' : 'resumeMilestoneProgressions',
            summary: state === 'pause' ? 'Pause a plan’s progression' : 'Resume a plan’s progression',
            description: `${state === 'pause' ? 'Its active milestone stops moving on by itself' : 'Its active milestone moves on by itself again (at once when overdue)'}; records \`release-plan-progressions-${state === 'pause' ? 'paused' : 'resumed'}\`.`,
            params: PlanParams,
            response: { 200: NoBody('Done.'), ...reads },
          },
        },
        async (request, reply) => {
          if (state === 'pause') {
            await pauseProgression(deps, where(request), request.params.planId, actor(request));
          } else {
            await apply<ChangeOf<'resumeMilestoneProgression'>>(request, {
              action: 'resumeMilestoneProgression',
              payload: { planId: request.params.planId },
            });
          }
          return sendEmpty(reply, 200);
        },
      );
    }
  });
