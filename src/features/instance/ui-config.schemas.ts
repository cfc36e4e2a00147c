import { Type } from 'typebox';

export const UiConfigSchema = Type.Object(
  {
    name: Type.String({ description: 'The product name.', examples: ['Flagship'] }),
    version: Type.String({ description: 'The service version.', examples: ['0.1.0'] }),
    unleashUrl: Type.String({ description: 'Where people reach the service (PUBLIC_URL).' }),
    baseUriPath: Type.String({ description: 'The path prefix the service is served under (BASE_URI_PATH).' }),
    versionInfo: Type.Object(
      {
        current: Type.Object(
          { oss: Type.String({ description: 'This version.' }) },
          { description: 'The running version.' },
        ),
        latest: Type.Object({}, { additionalProperties: true, description: 'Not checked: no call home.' }),
        isLatest: Type.Boolean({ description: 'Always true: the service does not look for updates.' }),
      },
      { description: 'Version information.' },
    ),
    authenticationType: Type.String({ description: 'Password login with sessions, and API tokens.' }),
    disablePasswordAuth: Type.Boolean({ description: 'Whether password login is off: never.' }),
    emailEnabled: Type.Boolean({ description: 'Whether the service sends email: never.' }),
    maintenanceMode: Type.Boolean({ description: 'Whether maintenance mode is on.' }),
    frontendApiOrigins: Type.Array(Type.String(), {
      description:
        'Origins browsers may call the frontend API from (set by `POST /api/admin/ui-config/cors`, else FRONTEND_CORS_ORIGINS).',
    }),
    flags: Type.Record(Type.String(), Type.Boolean(), {
      description: 'UI feature switches: none are needed, every feature is on.',
    }),
    links: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Extra UI links: none.',
    }),
  },
  { description: 'What the admin UI needs to know about this instance.' },
);
