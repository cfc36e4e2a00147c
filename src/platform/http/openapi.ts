import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI document is generated from the route schemas (served at /docs/openapi.json) with an
 * interactive reference at /docs. Admin routes use the API key scheme of the spec (a login session
 * cookie works too).
 */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    // Shared schemas keep their $id as their component name (#/components/schemas/Error).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Flagship admin API',
        version: '1.0.0',
        description: 'Feature-flag administration API, compatible with the Unleash admin API.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      },
      security: [{ apiKey: [] }],
    },
    // Each operation names the permission it needs (`x-permission`); public ones need no credential.
    transform: ({ schema, url, route }) => {
      const permission = (route.config as { permission?: string } | undefined)?.permission;
      if (!schema || !permission) return { schema, url };
      return {
        url,
        schema: { ...schema, 'x-permission': permission, ...(permission === 'PUBLIC' && { security: [] }) },
      };
    },
  });
}

/** The reference page and the JSON document; register after auth so they get the same hooks. */
export async function registerDocs(app: FastifyInstance) {
  // The reference page's own routes (HTML, scripts, styles) are public: the hook is added in the
  // encapsulated context of the swagger-ui plugin, so it marks those routes and no others.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, permission: 'PUBLIC' };
    });
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get('/docs/openapi.json', { config: { permission: 'PUBLIC' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
