import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import {
  AddonBody,
  AddonParams,
  AddonSchema,
  AddonsSchema,
  IntegrationEventsQuery,
  IntegrationEventsSchema,
} from './addons.schemas.js';
import * as service from './addons.service.js';
import { startDeliveryWorker } from './delivery.service.js';

export const addonRoutes = (deps: Deps) =>
  routes(async (app) => {
    const tags = ['Addons'];
    // The delivery worker lives with the app (ADDON_DELIVERY_SECONDS; 0 = off, as in tests).
    const every = deps.config.ADDON_DELIVERY_SECONDS * 1000;
    if (every > 0) {
      let stop: (() => Promise<void>) | undefined;
      app.addHook('onReady', async () => {
        stop = startDeliveryWorker(deps, every, app.log);
      });
      app.addHook('onClose', async () => stop?.());
    }

    app.get(
      '/api/admin/addons',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAddons',
          summary: 'Get all addons and providers',
          description: 'Every addon (sensitive parameters masked) and the providers this instance offers.',
          response: { 200: AddonsSchema, ...errorResponses(401, 403) },
        },
      },
      async () => service.listAddons(deps),
    );

    app.post(
      '/api/admin/addons',
      {
        config: { permission: 'CREATE_ADDON' },
        schema: {
          tags,
          operationId: 'createAddon',
          summary: 'Create a new addon',
          description:
            'Creates an addon of a known provider with its required parameters, and records `addon-config-created`.',
          body: AddonBody,
          response: { 200: AddonSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request) => service.createAddon(deps, request.body, actor(request)),
    );

    app.get(
      '/api/admin/addons/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAddon',
          summary: 'Get a specific addon',
          description: 'One addon, sensitive parameters masked.',
          params: AddonParams,
          response: { 200: AddonSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => service.getAddon(deps, request.params.id),
    );

    app.put(
      '/api/admin/addons/:id',
      {
        config: { permission: 'UPDATE_ADDON' },
        schema: {
          tags,
          operationId: 'updateAddon',
          summary: 'Update an addon',
          description:
            'Replaces the settings (description, projects and environments left out are kept; a sensitive parameter sent as `*****` keeps its value) and records `addon-config-updated`.',
          params: AddonParams,
          body: AddonBody,
          response: { 200: AddonSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => service.updateAddon(deps, request.params.id, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/addons/:id',
      {
        config: { permission: 'DELETE_ADDON' },
        schema: {
          tags,
          operationId: 'deleteAddon',
          summary: 'Delete an addon',
          description:
            'Deletes the addon, its pending deliveries and its delivery records; records `addon-config-deleted`.',
          params: AddonParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteAddon(deps, request.params.id, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      '/api/admin/addons/:id/events',
      {
        // What was sent where, and how the target answered: for those who may manage the addon.
        config: { permission: 'UPDATE_ADDON' },
        schema: {
          tags,
          operationId: 'getIntegrationEvents',
          summary: 'Get integration events for a specific integration configuration.',
          description:
            "The addon's delivery attempts and their outcomes, newest first (the newest 1,000 are kept); needs UPDATE_ADDON, and without ADMIN shows only the records of flag events.",
          params: AddonParams,
          querystring: IntegrationEventsQuery,
          response: { 200: IntegrationEventsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) =>
        service.listIntegrationEvents(deps, request.params.id, request.query, actor(request)),
    );
  });
