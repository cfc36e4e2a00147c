import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import { ProjectParams } from '../shapes/index.js';
import {
  actionable,
  availableReviewers,
  countOf,
  pendingRequests,
  projectRequests,
  scheduledWith,
  searchRequests,
} from './change-requests.lists.js';
import {
  ActionableSchema,
  AddChangesBody,
  ChangeInput,
  ChangeParams,
  ChangeRequestListSchema,
  ChangeRequestSchema,
  CommentBody,
  ConfigListSchema,
  CountSchema,
  FlagParams,
  ProjectEnvironmentParams,
  RequestParams,
  ReviewersBody,
  ReviewersSchema,
  ScheduledQuery,
  ScheduledSchema,
  SearchQuery,
  SearchSchema,
  StateBody,
  TitleBody,
  UpdateConfigBody,
} from './change-requests.schemas.js';
import {
  addChanges,
  changeState,
  comment,
  discardChange,
  discardDraft,
  editChange,
  getConfig,
  getRequest,
  requestReviewers,
  retitle,
  updateConfig,
} from './change-requests.service.js';

const tags = ['Change Requests'];
const BASE = '/api/admin/projects/:projectId/change-requests';
const ONE = `${BASE}/:id`;
const reads = errorResponses(400, 401, 403, 404);
const writes = errorResponses(400, 401, 403, 404, 409, 413, 415);

/**
 * Change requests (the four-eyes principle), at Unleash's paths. Most routes are open to any
 * signed-in caller (`NONE`) and check in the use case what the request's state and environment
 * ask for: the permission of each change proposed, `APPROVE_CHANGE_REQUEST` to approve or reject,
 * `APPLY_CHANGE_REQUEST` to apply or schedule, being its author to edit it.
 */
export const changeRequestRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    const ctx = { deps, changes };

    app.get(
      `${BASE}/config`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getChangeRequestConfig',
          summary: 'Change request settings of a project',
          description:
            'Each environment of the project, whether it requires change requests and how many approvals.',
          params: ProjectParams,
          response: { 200: ConfigListSchema, ...reads },
        },
      },
      async (request) => getConfig(ctx, request.params.projectId),
    );

    app.put(
      '/api/admin/projects/:projectId/environments/:environment/change-requests/config',
      {
        config: { permission: 'UPDATE_PROJECT' },
        schema: {
          tags,
          operationId: 'updateChangeRequestEnvironmentConfig',
          summary: 'Require change requests in an environment, or stop',
          description:
            'Turns change requests on (with 1-10 required approvals, default 1) or off for the project environment; records `change-request-configuration-updated`. While on, direct configuration writes there need `SKIP_CHANGE_REQUEST`.',
          params: ProjectEnvironmentParams,
          body: UpdateConfigBody,
          response: { 204: NoBody('Saved.'), ...writes },
        },
      },
      async (request, reply) => {
        const { projectId, environment } = request.params;
        await updateConfig(ctx, projectId, environment, request.body, actor(request));
        return sendEmpty(reply, 204);
      },
    );

    app.post(
      '/api/admin/projects/:projectId/environments/:environment/change-requests',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'addChangeToDraft',
          summary: "Add changes to the caller's draft",
          description:
            "Adds one change or several (`{feature, action, payload}`, Unleash's change kinds) to the caller's draft change request for the environment, created when there is none (`change-request-created`, then `change-added` each). Each change needs the permission its direct route needs, is made against the current state (a `snapshot` where the kind has one) and must apply now (else its error).",
          params: ProjectEnvironmentParams,
          body: AddChangesBody,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, environment } = request.params;
        const body = Array.isArray(request.body) ? request.body : [request.body];
        return addChanges(ctx, projectId, environment, body, actor(request));
      },
    );

    app.get(
      BASE,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getChangeRequestsForProject',
          summary: "A project's change requests",
          description: "Every change request of the project, newest first (others' drafts left out).",
          params: ProjectParams,
          response: { 200: ChangeRequestListSchema, ...reads },
        },
      },
      async (request) => projectRequests(ctx, request.params.projectId, actor(request)),
    );

    app.get(
      `${BASE}/pending`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getOpenChangeRequestsForUser',
          summary: 'Open change requests of a project',
          description:
            "The project's open change requests (draft, in review, approved, scheduled), the caller's draft among them.",
          params: ProjectParams,
          response: { 200: ChangeRequestListSchema, ...reads },
        },
      },
      async (request) => pendingRequests(ctx, request.params.projectId, actor(request)),
    );

    app.get(
      `${BASE}/pending/:featureName`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getOpenChangeRequestsForFeature',
          summary: 'Open change requests that change a flag',
          description: 'As the pending list, only requests with a change of the flag.',
          params: FlagParams,
          response: { 200: ChangeRequestListSchema, ...reads },
        },
      },
      async (request) =>
        pendingRequests(ctx, request.params.projectId, actor(request), request.params.featureName),
    );

    app.get(
      `${BASE}/count`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getChangeRequestsCount',
          summary: 'Change requests by state',
          description: "How many of the project's change requests are in each state.",
          params: ProjectParams,
          response: { 200: CountSchema, ...reads },
        },
      },
      async (request) => countOf(ctx, request.params.projectId),
    );

    app.get(
      `${BASE}/actionable`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getActionableChangeRequests',
          summary: 'Change requests waiting for the caller',
          description:
            'How many requests the caller may approve (in review, not theirs) or apply (approved) now.',
          params: ProjectParams,
          response: { 200: ActionableSchema, ...reads },
        },
      },
      async (request) => actionable(ctx, request.params.projectId, actor(request)),
    );

    app.get(
      `${BASE}/scheduled`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getScheduledChangeRequests',
          summary: 'Scheduled change requests touching flags or strategies',
          description:
            'Scheduled requests of the project with a change of one of the flags (`feature`), strategies (`strategyId`) or flag variants (`variantForFlag`) named (each may repeat).',
          params: ProjectParams,
          querystring: ScheduledQuery,
          response: { 200: ScheduledSchema, ...reads },
        },
      },
      async (request) => scheduledWith(ctx, request.params.projectId, request.query),
    );

    app.get(
      `${BASE}/available-reviewers/:environment`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAvailableReviewers',
          summary: 'Who may approve in an environment',
          description:
            'Active people holding `APPROVE_CHANGE_REQUEST` (or Admin) in the project environment.',
          params: ProjectEnvironmentParams,
          response: { 200: ReviewersSchema, ...reads },
        },
      },
      async (request) => availableReviewers(ctx, request.params.projectId, request.params.environment),
    );

    app.get(
      ONE,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getChangeRequest',
          summary: 'A change request',
          description:
            "One change request, each open change with its `conflict` when its target moved since it was made (it cannot apply until edited or discarded). Another person's draft is a 404.",
          params: RequestParams,
          response: { 200: ChangeRequestSchema, ...reads },
        },
      },
      async (request) => getRequest(ctx, request.params.projectId, request.params.id, actor(request)),
    );

    app.delete(
      ONE,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'deleteChangeRequest',
          summary: 'Discard a draft',
          description: 'Discards the caller’s draft change request whole (`change-request-discarded`).',
          params: RequestParams,
          response: { 200: NoBody('Discarded.'), ...writes },
        },
      },
      async (request, reply) => {
        await discardDraft(ctx, request.params.projectId, request.params.id, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.put(
      `${ONE}/state`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'changeRequestStateChange',
          summary: 'Move a change request on',
          description:
            'Draft → In review (its author), In review → Approved or Rejected (`APPROVE_CHANGE_REQUEST`, never its author; Approved once the required approvals are in), Approved → Applied or Scheduled (`APPLY_CHANGE_REQUEST`; applying runs every change in one transaction, all or nothing), Scheduled → Applied or rescheduled, any open state → Cancelled (its author, or who may apply). A transition the state does not allow is a 409 ConflictError.',
          params: RequestParams,
          body: StateBody,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await changeState(ctx, projectId, id, request.body, actor(request));
        return getRequest(ctx, projectId, id, actor(request));
      },
    );

    app.put(
      `${ONE}/changes/:changeId`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'editChange',
          summary: 'Edit a change',
          description:
            'Replaces one change of the request (its author; `change-edited`); a request in review or approved goes back to Draft and its approvals are dropped.',
          params: ChangeParams,
          body: ChangeInput,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, id, changeId } = request.params;
        await editChange(ctx, projectId, id, changeId, request.body, actor(request));
        return getRequest(ctx, projectId, id, actor(request));
      },
    );

    app.delete(
      `${ONE}/changes/:changeId`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'deleteChange',
          summary: 'Discard a change',
          description:
            'Removes one change of the request (its author; `change-discarded`); the request goes with its last change, and otherwise goes back to Draft.',
          params: ChangeParams,
          response: { 200: NoBody('Discarded.'), ...writes },
        },
      },
      async (request, reply) => {
        const { projectId, id, changeId } = request.params;
        await discardChange(ctx, projectId, id, changeId, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.post(
      `${ONE}/comments`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'addChangeRequestComment',
          summary: 'Comment on a change request',
          description: 'Adds a comment by the caller.',
          params: RequestParams,
          body: CommentBody,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await comment(ctx, projectId, id, request.body.text, actor(request));
        return getRequest(ctx, projectId, id, actor(request));
      },
    );

    app.put(
      `${ONE}/title`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'updateChangeRequestTitle',
          summary: 'Retitle a change request',
          description: 'Sets the title (its author).',
          params: RequestParams,
          body: TitleBody,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await retitle(ctx, projectId, id, request.body.title, actor(request));
        return getRequest(ctx, projectId, id, actor(request));
      },
    );

    app.put(
      `${ONE}/approvers`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'updateRequestedApprovers',
          summary: 'Ask people to review',
          description: 'Replaces the people asked to review the request (its author).',
          params: RequestParams,
          body: ReviewersBody,
          response: { 200: ChangeRequestSchema, ...writes },
        },
      },
      async (request) => {
        const { projectId, id } = request.params;
        await requestReviewers(ctx, projectId, id, request.body.reviewers, actor(request));
        return getRequest(ctx, projectId, id, actor(request));
      },
    );

    app.get(
      '/api/admin/search/change-requests',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'searchChangeRequests',
          summary: 'Search change requests',
          description:
            'Change requests across projects, newest first: by author (`createdBy`), by requested reviewer (`requestedApproverId`), open or closed (`state=IS:open|IS:closed`), paged (`offset`, `limit` ≤ 1000, default 50).',
          querystring: SearchQuery,
          response: { 200: SearchSchema, ...reads },
        },
      },
      async (request) => searchRequests(ctx, request.query, actor(request)),
    );
  });
