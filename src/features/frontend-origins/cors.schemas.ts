import { Type } from 'typebox';

export const SetCorsBody = Type.Object(
  {
    frontendApiOrigins: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 1000,
          description:
            '`*` (any origin, without credentials) or an origin such as `https://app.example.com`.',
        }),
        {
          maxItems: 1000,
          description: 'Origins browsers may call the frontend API from; empty allows none. Absent keeps.',
          examples: [['https://app.example.com']],
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'CORS settings of the frontend API (Unleash setCorsSchema).' },
);
