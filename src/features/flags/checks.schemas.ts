import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

export const ValidateNameBody = Type.Object(
  {
    name: Type.String({
      maxLength: 1000,
      description: 'The flag name to check.',
      examples: ['my-feature-3'],
    }),
    projectId: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 100,
          description: 'The project the flag would be created in: its naming pattern applies.',
          examples: ['default'],
        }),
      ),
    ),
  },
  { description: 'A flag name to check before creating the flag.' },
);

export const LifecycleCountSchema = Type.Object(
  {
    initial: Type.Integer({ description: 'Flags in the initial stage.' }),
    preLive: Type.Integer({ description: 'Flags in the pre-live stage.' }),
    live: Type.Integer({ description: 'Flags in the live stage.' }),
    completed: Type.Integer({ description: 'Flags in the completed stage.' }),
    archived: Type.Integer({ description: 'Flags in the archived stage.' }),
  },
  { description: 'How many flags are in each lifecycle stage now.' },
);
