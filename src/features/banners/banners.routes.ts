import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { BannerBody, BannerListSchema, BannerParams, BannerSchema } from './banners.schemas.js';
import { createBanner, getBanners, removeBanner, updateBanner } from './banners.service.js';

const tags = ['Banners'];
const BASE = '/api/admin/banners';
const writes = errorResponses(400, 401, 403, 404, 413, 415);

/** Instance banners, at Unleash's paths; anyone signed in reads them, Admins manage them. */
export const bannerRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      BASE,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getBanners',
          summary: 'All banners',
          description: 'Every banner, enabled or not (the web UI shows the enabled ones).',
          response: { 200: BannerListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getBanners(deps),
    );

    app.post(
      BASE,
      {
        config: { permission: 'UPDATE_INSTANCE_BANNERS' },
        schema: {
          tags,
          operationId: 'createBanner',
          summary: 'Create a banner',
          description: 'Creates a banner (enabled unless `enabled` is false); records `banner-created`.',
          body: BannerBody,
          response: { 201: BannerSchema, ...writes },
        },
      },
      async (request, reply) => reply.code(201).send(await createBanner(deps, request.body, actor(request))),
    );

    app.put(
      `${BASE}/:id`,
      {
        config: { permission: 'UPDATE_INSTANCE_BANNERS' },
        schema: {
          tags,
          operationId: 'updateBanner',
          summary: 'Update a banner',
          description: 'Replaces the banner’s content; records `banner-updated`.',
          params: BannerParams,
          body: BannerBody,
          response: { 200: BannerSchema, ...writes },
        },
      },
      async (request) => updateBanner(deps, request.params.id, request.body, actor(request)),
    );

    for (const state of ['on', 'off'] as const) {
      app.post(
        `${BASE}/:id/${state}`,
        {
          config: { permission: 'UPDATE_INSTANCE_BANNERS' },
          schema: {
            tags,
            operationId: state === 'on' ? 'enableBanner' : 'disableBanner',
            summary: state === 'on' ? 'Show a banner' : 'Hide a banner',
            description: `${state === 'on' ? 'Enables' : 'Disables'} the banner; records \`banner-updated\`.`,
            params: BannerParams,
            response: { 200: BannerSchema, ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request) => updateBanner(deps, request.params.id, { enabled: state === 'on' }, actor(request)),
      );
    }

    app.delete(
      `${BASE}/:id`,
      {
        config: { permission: 'UPDATE_INSTANCE_BANNERS' },
        schema: {
          tags,
          operationId: 'deleteBanner',
          summary: 'Delete a banner',
          description: 'Deletes the banner; records `banner-deleted`.',
          params: BannerParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeBanner(deps, request.params.id, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
